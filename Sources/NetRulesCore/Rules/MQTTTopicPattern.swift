/// MQTT topics of which some levels may not be known yet, and whether a topic filter matches them.
///
/// `check` compares each `subscribe:` filter with the daemon's own topics, and the client id in
/// them may be derived from the machine only when the daemon runs: such a level matches
/// anything. A topic the daemon knows in full (`init(topic:)`) is a pattern of exact levels, so
/// the same matching decides which subscription a received message sets.
public struct MQTTTopicPattern: Hashable, Sendable, CustomStringConvertible {
    /// One level of the pattern.
    public enum Level: Hashable, Sendable {
        /// This level exactly.
        case exact(String)
        /// Any one level, shown as `placeholder` (`<client id>`).
        case any(placeholder: String)
        /// One level or more of anything, shown as `placeholder` (`<rule>/set`); only last.
        case rest(placeholder: String)
    }

    /// The levels, in order.
    public var levels: [Level]

    /// A pattern of these levels; a `.rest` level can only be the last.
    public init(_ levels: [Level]) {
        precondition(levels.dropLast().allSatisfy { if case .rest = $0 { false } else { true } })
        self.levels = levels
    }

    /// The one topic `topic` (a topic name, no wildcard).
    public init(topic: String) {
        self.levels = topic.split(separator: "/", omittingEmptySubsequences: false).map { .exact(String($0)) }
    }

    /// The levels joined by `/`, placeholders as written: `netrules/<client id>/state`.
    public var description: String {
        levels.map { level in
            switch level {
            case .exact(let text): text
            case .any(let placeholder), .rest(let placeholder): placeholder
            }
        }.joined(separator: "/")
    }

    /// Whether the topic filter `filter` matches at least one topic of this pattern.
    ///
    /// As MQTT says (3.1.1 §4.7): `+` stands for one whole level, a last `#` for the rest, the
    /// level before it included (`a/#` matches `a`), and a topic starting with `$` matches no
    /// filter starting with a wildcard. A level the pattern does not know matches any level of
    /// the filter.
    public func isMatched(by filter: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        if case .exact(let first)? = levels.first, first.hasPrefix("$"), let wildcard = filterLevels.first,
            wildcard == "+" || wildcard == "#"
        {
            return false
        }
        var index = 0
        while true {
            let wanted = index < filterLevels.count ? filterLevels[index] : nil
            let level = index < levels.count ? levels[index] : nil
            switch (wanted, level) {
            case (nil, nil): return true
            case ("#"?, _): return true
            // Whatever is left of the filter matches some topic of one level or more.
            case (_?, .rest?): return true
            case (nil, _?), (_?, nil): return false
            case (let wanted?, .exact(let text)?): if wanted != "+" && wanted != text[...] { return false }
            case (_?, .any?): break
            }
            index += 1
        }
    }
}
