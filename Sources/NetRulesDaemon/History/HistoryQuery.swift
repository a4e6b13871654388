import NetRulesCore
import NetRulesDaemonCore

/// Which firings `netrules history` asks for: one rule's, since a time, the newest N.
///
/// The daemon and the command's fallback (reading the state directory) apply the same query, so
/// both print the same firings.
package struct HistoryQuery: Sendable, Equatable {
    /// Only this rule's firings (an unknown name selects none: the rule may have existed).
    package var rule: String?
    /// Only firings at most this long ago.
    package var since: Duration?
    /// The newest this many (nil: all kept).
    package var limit: Int?

    package init(rule: String? = nil, since: Duration? = nil, limit: Int? = nil) {
        self.rule = rule
        self.since = since
        self.limit = limit
    }

    /// The entries selected, oldest first.
    /// - Parameters:
    ///   - entries: every entry kept, oldest first.
    ///   - now: the current Unix time, for `since`.
    package func select(_ entries: [HistoryEntry], now: Int64) -> [HistoryEntry] {
        var selected = entries
        if let rule { selected = selected.filter { $0.rule == rule } }
        if let since {
            let cutoff = now - Int64(DurationSyntax.seconds(since).rounded(.up))
            selected = selected.filter { entry in WallClock.unixTime(rfc3339: entry.time).map { $0 >= cutoff } ?? false
            }
        }
        if let limit { selected = Array(selected.suffix(max(0, limit))) }
        return selected
    }
}
