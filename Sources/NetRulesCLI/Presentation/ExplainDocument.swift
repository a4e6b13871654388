import NetRulesCore
import NetRulesDaemon

/// `explain`'s document as text; its JSON is the document itself (`ControlDocuments.explain`),
/// which the daemon answers with and the command line builds the same way without one.
enum ExplainDocument {
    /// The document as `--json` prints it: one line.
    static func json(_ document: JSONValue) -> String { document.compact + "\n" }

    /// `rule NAME: TRUE (source: SOURCE)`, the condition tree one node a line (the layout of
    /// `Explanation.text`), then what the rule waits for (`pending: enter in 7 s`) and what drops
    /// its firings (`cooldown: dropped until 04:00`), then `facts read:` with each fact the
    /// condition read.
    /// - Parameters:
    ///   - document: an `explain` answer (`ControlDocuments.explain`).
    ///   - source: where the facts came from: `daemon` or `snapshot`.
    static func text(_ document: JSONValue, source: String) -> String {
        let rule = document.member("rule")?.plainText ?? "?"
        let truth = document.member("truth")?.plainText ?? "unknown"
        var lines = ["rule \(rule): \(truth.uppercased()) (source: \(source))"]
        func walk(_ node: JSONValue, depth: Int) {
            let truth = node.member("truth")?.plainText ?? "unknown"
            let condition = node.member("condition")?.plainText ?? ""
            // The same columns as `Explanation.text`: the truth padded to 8, two spaces per level.
            let padded = truth.count >= 8 ? truth + " " : truth + String(repeating: " ", count: 8 - truth.count)
            lines.append(String(repeating: "  ", count: depth) + padded + condition)
            if case .array(let children)? = node.member("children") {
                for child in children { walk(child, depth: depth + 1) }
            }
        }
        if let tree = document.member("tree") { walk(tree, depth: 0) }
        lines += waits(document.member("state"))
        if case .array(let places)? = document.member("places") { lines += places.flatMap(place) }
        var facts: [(String, String)] = []
        if case .object(let known)? = document.member("facts") {
            facts += known.map { key, value in
                let local = key == FactKey.localClock.rawValue ? value.stringValue.flatMap(clockText) : nil
                return (TerminalText.escaped(key), local ?? JSONValue.stateText(value))
            }
        }
        if case .array(let unknown)? = document.member("unknown") {
            facts += unknown.compactMap { $0.stringValue.map { (TerminalText.escaped($0), "unknown") } }
        }
        facts.sort { $0.0 < $1.0 }
        lines.append("facts read:" + (facts.isEmpty ? " none" : ""))
        let width = (facts.map(\.0.count).max() ?? 0) + 2
        for (key, value) in facts {
            lines.append("  " + key + String(repeating: " ", count: width - key.count) + value)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `place office: claimed`, then its condition with its value, its proofs, and where they
    /// stand with the last failure's reason.
    static func place(_ place: JSONValue) -> [String] {
        let name = place.member("name")?.plainText ?? "?"
        var lines = ["place \(name): \(place.member("status")?.plainText ?? "away")"]
        let truth = place.member("condition_truth")?.plainText ?? "unknown"
        lines.append("  when (\(truth)): \(place.member("when")?.plainText ?? "")")
        var proofs: [String] = []
        if case .array(let items)? = place.member("proofs") { proofs = items.map(\.plainText) }
        lines.append(
            "  proofs: "
                + (proofs.isEmpty ? "none (here whenever its condition holds)" : proofs.joined(separator: ", ")))
        if let proof = place.member("proof"), proof != .null {
            var line = "  proof: \(proof.plainText)"
            if let reason = place.member("reason"), reason != .null { line += " (\(reason.plainText))" }
            lines.append(line)
        }
        return lines
    }

    /// The `paused from MQTT at …`, `pending:`, `cooldown:` and `once_per:` lines of an `explain`
    /// document's `state`.
    static func waits(_ state: JSONValue?) -> [String] {
        guard let state else { return [] }
        var lines: [String] = []
        if let paused = paused(state) { lines.append(paused + ": its firings are not run until it is resumed") }
        if let hold = state.member("hold"), let edge = hold.member("edge")?.stringValue.map(TerminalText.escaped) {
            if let left = hold.member("deadline_in_seconds")?.numberValue {
                lines.append("pending: \(edge) in \(spoken(seconds: left)) (for:)")
            } else {
                lines.append("pending: \(edge), when its for: time has passed")
            }
        }
        if state.member("cooldown") == .bool(true) {
            lines.append(
                "cooldown: dropped until "
                    + until(state.member("cooldown_until"), left: state.member("cooldown_in_seconds")))
        }
        if case .array(let edges)? = state.member("once_per") {
            for entry in edges {
                let edge = entry.member("edge")?.plainText ?? "?"
                lines.append(
                    "once_per: \(edge) dropped until "
                        + until(entry.member("until"), left: entry.member("in_seconds")))
            }
        }
        return lines
    }

    /// `paused from MQTT at 2026-12-01 09:02 +0100` for a `state` whose rule a command paused; nil
    /// for any other.
    static func paused(_ state: JSONValue?) -> String? {
        guard let paused = state?.member("paused"), case .object = paused else { return nil }
        let by = paused.member("by")?.plainText ?? "?"
        let since = paused.member("since")?.stringValue
        return "paused from \(by) at " + (since.flatMap(localMinutes) ?? since.map(TerminalText.escaped) ?? "?")
    }

    /// `2026-12-02 04:00 +0100 (in 3 h 12 min)` from an RFC 3339 local time, in the zone the daemon
    /// computed it in (so the text matches its `once_per:` days): the layout `history` shows drops in.
    static func until(_ time: JSONValue?, left: JSONValue?) -> String {
        guard let text = time?.stringValue, let shown = localMinutes(text) else { return "unknown" }
        guard let seconds = left?.numberValue else { return shown }
        return shown + " (in \(spoken(seconds: seconds)))"
    }

    /// `2026-12-02 04:00 +0100` for `2026-12-02T04:00:00+01:00` (`+0000` for `Z`): the time with
    /// its own offset, as `WallClock.local(_:utcOffset:withSeconds: false)` writes it.
    static func localMinutes(_ rfc3339: String) -> String? {
        guard let unix = WallClock.unixTime(rfc3339: rfc3339) else { return nil }
        let zone = rfc3339.suffix(6)
        var offset: Int64 = 0
        if zone.count == 6, let sign = zone.first, sign == "+" || sign == "-",
            let hours = Int64(zone.dropFirst().prefix(2)), let minutes = Int64(zone.suffix(2))
        {
            offset = (hours * 3_600 + minutes * 60) * (sign == "-" ? -1 : 1)
        }
        return WallClock.local(unix, utcOffset: offset, withSeconds: false)
    }

    /// `Tue 07:00:10 +01:00` for `clock.local`'s `2026-12-01T07:00:10+01:00`: the local time a
    /// `time:` window compared, with the weekday `days:` reads.
    static func clockText(_ rfc3339: String) -> String? {
        // The date and time as written are the local ones; read them as if they were UTC.
        guard rfc3339.count >= 20, WallClock.unixTime(rfc3339: rfc3339) != nil,
            let fields = WallClock.unixTime(rfc3339: String(rfc3339.prefix(19)) + "Z")
        else { return nil }
        let zone = rfc3339.hasSuffix("Z") ? "+00:00" : String(rfc3339.suffix(6))
        let local = LocalTime(seconds: fields)
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        return days[local.weekday] + " " + local.timeText + " " + zone
    }

    /// A duration as a person says it: `7 s`, `12 min`, `3 h 12 min`, `5 d 2 h`.
    static func spoken(seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total) s" }
        let minutes = (total + 59) / 60
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 24 { return minutes % 60 == 0 ? "\(hours) h" : "\(hours) h \(minutes % 60) min" }
        return hours % 24 == 0 ? "\(hours / 24) d" : "\(hours / 24) d \(hours % 24) h"
    }
}
