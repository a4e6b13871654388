import NetRulesCore
import NetRulesDaemonCore

/// `netrules history` as people read it: one block per firing, blocks separated by a blank line.
///
/// ```
/// 2026-12-01 09:02:13 +0100  office-check-in  enter
///   facts   ssid="XF-WORLD"  bssid=a4:2b:8c:92:47:3c  portal=clear
///   webhook POST https://hr.example.com/check-in  → HTTP 200 in 143 ms, 1 retry
///   write   /home/u/.local/state/netrules/checkins.log (append): …  → ok in 1 ms
/// ```
///
/// A dropped edge reads `dropped: once_per (until 2026-12-02 00:00 +0100)` in place of its actions:
/// local time with its offset, as `explain` and `rules` show drops.
/// Values are escaped so no fact or output can forge a line.
package enum HistoryText {
    /// The blocks of `entries`, each ending in a newline, separated by a blank line.
    /// - Parameter utcOffset: seconds east of UTC at a Unix time (`SystemTimeZone.utcOffset`).
    package static func render(_ entries: [HistoryEntry], utcOffset: (Int64) -> Int64) -> String {
        entries.map { block($0, utcOffset: utcOffset) }.joined(separator: "\n")
    }

    /// One firing's block.
    package static func block(_ entry: HistoryEntry, utcOffset: (Int64) -> Int64) -> String {
        var lines = ["\(local(entry.time, utcOffset: utcOffset))  \(plain(entry.rule))  \(entry.edge.rawValue)"]
        if let dropped = entry.dropped {
            var reason = "  dropped: \(plain(dropped.reason))"
            if let until = dropped.until {
                let shown = WallClock.unixTime(rfc3339: until).map {
                    WallClock.local($0, utcOffset: utcOffset($0), withSeconds: false)
                }
                reason += " (until \(shown ?? plain(until)))"
            } else if dropped.reason == "stale" {
                reason += " (the rule fired '\(entry.edge.opposite.rawValue)' before this edge's actions ran)"
            } else if dropped.reason == "coalesced" {
                reason += " (a later edge of the rule cancelled or replaced it while the rule was busy)"
            } else if dropped.reason == "paused" {
                reason += " (the rule was paused: its actions did not run)"
            }
            lines.append(reason)
        }
        let facts = entry.facts.map { "\(plain($0.key))=\(value($0.value, key: $0.key))" }
        lines.append("  " + label("facts") + (facts.isEmpty ? "none" : facts.joined(separator: "  ")))
        if let coalesced = entry.coalesced {
            lines.append("  " + label("note") + "\(coalesced) edge\(coalesced == 1 ? "" : "s") coalesced while it ran")
        }
        if entry.dropped?.reason != "stale", entry.dropped?.reason != "coalesced" {
            for action in entry.actions {
                lines.append(
                    "  " + label(action.type) + plain(action.rendered) + "  → "
                        + outcome(action.outcome, type: action.type))
                if let output = action.outcome.output {
                    for line in output.split(separator: "\n") { lines.append("          " + plain(String(line))) }
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `ok in 1 ms`, `exit status 0 in 4.2 ms`, `HTTP 200 in 143 ms, 1 retry`,
    /// `failed (exit status 1) in 20 ms: the command exited with status 1`, `skipped: …`, and the
    /// account: `exit status 0 in 4.2 ms, as alice` (`user:`), `ok in 1 ms, owner alice:alice`
    /// (a `write` with `owner:`).
    static func outcome(_ outcome: HistoryEntry.Outcome, type: String = "") -> String {
        var status: String?
        if let http = outcome.httpStatus {
            status = "HTTP \(http)"
        } else if let exit = outcome.exitStatus {
            status = "exit status \(exit)"
        } else if let signal = outcome.signal {
            status = "signal \(signal)"
        }
        var text: String
        switch outcome.status {
        case "ok": text = status ?? "ok"
        case "failed": text = "failed" + (status.map { " (\($0))" } ?? "")
        case "skipped": text = "skipped: " + plain(outcome.error ?? "")
        case "queued": text = "queued in the outbox"
        case "pending": text = "pending"
        default: text = plain(outcome.status)
        }
        if let ms = outcome.durationMilliseconds {
            text += " in " + (ms >= 10 ? String(Int(ms.rounded())) : FactValue.format(ms)) + " ms"
        }
        if let retries = outcome.retries, retries > 0 { text += ", \(retries) retr\(retries == 1 ? "y" : "ies")" }
        if let account = outcome.account {
            text +=
                type == "write"
                ? ", owner " + plain(account) + (outcome.group.map { ":" + plain($0) } ?? "") : ", as " + plain(account)
        }
        if outcome.status == "failed" { text += ": " + plain(outcome.error ?? "unknown error") }
        return text
    }

    /// The label column: the word padded to 8, with at least one space after it.
    private static func label(_ word: String) -> String {
        let shown = plain(word)
        return shown + String(repeating: " ", count: max(1, 8 - shown.count))
    }

    private static func local(_ time: String, utcOffset: (Int64) -> Int64) -> String {
        guard let seconds = WallClock.unixTime(rfc3339: time) else { return plain(time) }
        return WallClock.local(seconds, utcOffset: utcOffset(seconds))
    }

    /// A fact's value: `unknown`, `none` (known absent), a bare word, or quoted text.
    static func value(_ value: JSONValue?, key: String) -> String {
        guard let value else { return "unknown" }
        switch value {
        case .null: return "none"
        case .string(let text):
            // An SSID is whatever a network calls itself: always quoted (docs/security.md).
            return key != "ssid" && isWord(text) ? text : quoted(text)
        case .bytes(let bytes):
            // Text that is not UTF-8 (history.jsonl keeps it as `\udcXX`): quoted, its bytes as `\xNN`.
            return TerminalText.quoted(bytes: bytes)
        case .array(let items): return "[" + items.map { self.value($0, key: key) }.joined(separator: ", ") + "]"
        default: return value.plainText
        }
    }

    private static func isWord(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                        || ".:-_/@+%,".unicodeScalars.contains($0))
            }
    }

    private static func quoted(_ text: String) -> String { TerminalText.quoted(text) }

    /// Text through ``TerminalText``, so a value cannot forge lines or drive the terminal.
    private static func plain(_ text: String) -> String { TerminalText.escaped(text) }
}
