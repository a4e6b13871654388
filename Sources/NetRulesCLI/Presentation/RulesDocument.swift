import NetRulesCore
import NetRulesDaemon

/// `rules`'s document as text; its JSON is the document itself (`ControlDocuments.rules`), which
/// the daemon answers with and the command line builds the same way from the rule files.
enum RulesDocument {
    /// The document as `--json` prints it: one line.
    static func json(_ document: JSONValue) -> String { document.compact + "\n" }

    /// `source: daemon` (or `source: rule files, no daemon: every truth unknown`); while the daemon's
    /// last reload failed, `rules: /etc/netrules/hello.yaml has errors since 17:11:25 (2); running the
    /// previous rules` (`FailedReloadText`); then a table with one rule a line: its truth, its pending `for:` hold, what drops its firings (a pause by a
    /// command, cooldown, `once_per`) until when, and its last firing; `none` where there is nothing,
    /// `unknown` where the files cannot say.
    /// - Parameters:
    ///   - document: a `rules` answer.
    ///   - utcOffset: seconds east of UTC at a Unix time, for the last firings (stored in UTC).
    ///   - reloadTimes: the zone and clock a failed reload's times are shown in; nil for this machine's.
    ///   - width: the terminal's width: PENDING, DROPPING and LAST FIRING wrap to fit it (nil: one
    ///     line a rule, as a pipe gets it).
    static func text(
        _ document: JSONValue, reloadTimes: FailedReloadText? = nil, width: Int? = nil, utcOffset: (Int64) -> Int64
    ) -> String {
        let fromFiles = document.member("source")?.stringValue == ControlDocuments.RulesSource.files.rawValue
        var lines = [fromFiles ? "source: rule files, no daemon: every truth unknown" : "source: daemon"]
        if let line = (reloadTimes ?? .system).line(document.member("failed_reload")) { lines.append(line) }
        var rows = [["RULE", "TRUTH", "PENDING", "DROPPING", "LAST FIRING"]]
        guard case .array(let rules)? = document.member("rules") else { return lines.joined() + "\n" }
        for rule in rules {
            let state = rule.member("state")
            let known = state != nil && state != .null
            rows.append([
                rule.member("name")?.plainText ?? "?", rule.member("truth")?.plainText ?? "unknown",
                known ? pending(state) : "unknown", known ? dropping(state) : "unknown",
                lastFiring(rule.member("last_firing"), utcOffset: utcOffset),
            ])
        }
        lines += Table.render(rows, width: width, wrapping: [2, 3, 4])
        return lines.joined(separator: "\n") + "\n"
    }

    /// `enter at 2026-12-01 09:02 +0100 (in 7 s)`, or `none`.
    private static func pending(_ state: JSONValue?) -> String {
        guard let hold = state?.member("hold"), hold != .null else { return "none" }
        let edge = hold.member("edge")?.plainText ?? "?"
        return edge + " at " + ExplainDocument.until(hold.member("deadline"), left: hold.member("deadline_in_seconds"))
    }

    /// `paused from MQTT at …`, `cooldown until …`, `once_per enter until …`, joined by `, `; or `none`.
    private static func dropping(_ state: JSONValue?) -> String {
        var drops: [String] = []
        if let paused = ExplainDocument.paused(state) { drops.append(paused) }
        if state?.member("cooldown") == .bool(true) {
            drops.append(
                "cooldown until "
                    + ExplainDocument.until(state?.member("cooldown_until"), left: state?.member("cooldown_in_seconds"))
            )
        }
        if case .array(let edges)? = state?.member("once_per") {
            for entry in edges {
                drops.append(
                    "once_per \(entry.member("edge")?.plainText ?? "?") until "
                        + ExplainDocument.until(entry.member("until"), left: entry.member("in_seconds")))
            }
        }
        return drops.isEmpty ? "none" : drops.joined(separator: ", ")
    }

    /// `2026-12-01 09:02:13 +0100 enter`, or `none`.
    private static func lastFiring(_ firing: JSONValue?, utcOffset: (Int64) -> Int64) -> String {
        guard let firing, firing != .null, let time = firing.member("time")?.stringValue else { return "none" }
        let edge = firing.member("edge")?.plainText ?? "?"
        guard let seconds = WallClock.unixTime(rfc3339: time) else { return TerminalText.escaped(time) + " " + edge }
        return WallClock.local(seconds, utcOffset: utcOffset(seconds)) + " " + edge
    }
}
