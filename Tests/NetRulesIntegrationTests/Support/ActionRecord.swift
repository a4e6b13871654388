import Foundation
@preconcurrency import Glibc
import NetRulesTesting

/// The lines a `run` action's hook appended to a record file, one per run.
///
/// The hook (``script(in:)``) writes `NANOSECONDS RULE EDGE SSID` as its first act, with the
/// time from `date +%s%N` (CLOCK_REALTIME, comparable with the test's own clock), and keeps the
/// firing's JSON from standard input next to it in `FILE.json`.
struct ActionRecord {
    struct Entry: Equatable {
        var nanoseconds: Int64
        var rule: String
        var edge: String
        var ssid: String
    }

    let path: String

    /// Installs the hook script in the testbed and returns its path.
    static func script(in testbed: Testbed) throws -> String {
        try testbed.write(
            """
            #!/bin/sh
            # $1: the record file. The time comes first so it is the action's start, not its end.
            now=$(date +%s%N)
            firing=$(cat)
            printf '%s %s %s %s\\n' "$now" "$NETRULES_RULE" "$NETRULES_EDGE" "${NETRULES_SSID:--}" >> "$1"
            printf '%s\\n' "$firing" >> "$1.json"

            """, to: "hook", executable: true)
    }

    /// The `run:` action line recording into this file.
    func action(hook: String) -> String { "- run: \"\(hook) \(path)\"" }

    var entries: [Entry] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
            guard fields.count == 4, let ns = Int64(fields[0]) else { return nil }
            return Entry(nanoseconds: ns, rule: fields[1], edge: fields[2], ssid: fields[3])
        }
    }

    /// The firings' JSON documents as the actions read them from standard input.
    var firings: [[String: Any]] {
        let text = (try? String(contentsOfFile: path + ".json", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The edges recorded so far, in order.
    var edges: [String] { entries.map(\.edge) }
}

/// The wall clock in nanoseconds, as `date +%s%N` prints it.
func realtimeNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
