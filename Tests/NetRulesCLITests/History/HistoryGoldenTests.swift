import Foundation
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
import Testing

/// `history` text and `--json` compared byte for byte with `Golden/history.text` and
/// `Golden/history.jsonl`. `NETRULES_RECORD=1` rewrites them; review the diff.
@Suite(.timeLimit(.minutes(1)))
struct HistoryGoldenTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden")

    func compare(_ actual: String, to name: String) throws {
        let url = Self.directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["NETRULES_RECORD"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("recorded \(name); review the diff and run again without NETRULES_RECORD")
            return
        }
        #expect(actual == (try String(contentsOf: url, encoding: .utf8)))
    }

    @Test func textIsOneBlockPerFiringInLocalTime() throws {
        // Central European winter time, so the golden shows a local time and a once_per midnight.
        try compare(HistoryText.render(HistoryFixtures.entries) { _ in 3_600 }, to: "history.text")
    }

    @Test func jsonIsOneVersionedLinePerFiring() throws {
        let lines = HistoryFixtures.entries.map { $0.document.compact + "\n" }
        for line in lines { #expect(line.hasPrefix(#"{"version":1,"#)) }
        try compare(lines.joined(), to: "history.jsonl")
    }

    @Test func everyEntryReadsBackFromItsDocument() throws {
        for entry in HistoryFixtures.entries {
            let line = Array(entry.document.compact.utf8)
            let decoded = try #require(HistoryEntry(document: try JSONValue.parse(line)))
            // Known facts come back first, then the unknown ones: the document keeps them apart.
            #expect(decoded.document.compact == entry.document.compact)
            #expect(decoded.actions == entry.actions)
            #expect(decoded.dropped == entry.dropped)
        }
    }

    @Test func boundedTextKeepsWholeCharactersAndMarksTheCut() {
        let long = String(repeating: "é", count: 2_000)
        let cut = HistoryEntry.bounded(long)
        #expect(cut.utf8.count <= HistoryEntry.textLimit)
        #expect(cut.hasSuffix("…"))
        #expect(HistoryEntry.bounded("short") == "short")
    }

    @Test func wallClockReadsBackWhatItWrites() {
        #expect(WallClock.unixTime(rfc3339: "1970-01-01T00:00:00Z") == 0)
        #expect(WallClock.unixTime(rfc3339: "2026-12-01T09:02:13Z") == 1_796_115_733)
        #expect(WallClock.unixTime(rfc3339: "2026-12-01T10:02:13+01:00") == 1_796_115_733)
        #expect(WallClock.unixTime(rfc3339: "2026-12-01T09:02:13.250Z") == 1_796_115_733)
        #expect(WallClock.rfc3339(WallTime(secondsSince1970: 1_796_115_733)) == "2026-12-01T09:02:13Z")
        #expect(WallClock.local(1_796_115_733, utcOffset: 3_600) == "2026-12-01 10:02:13 +0100")
        #expect(WallClock.local(1_796_115_733, utcOffset: -16_200) == "2026-12-01 04:32:13 -0430")
        for bad in ["", "yesterday", "2026-13-01T00:00:00Z", "2026-12-01T09:02:13", "2026-12-01T09:02:13+1"] {
            #expect(WallClock.unixTime(rfc3339: bad) == nil, "\(bad)")
        }
    }
}
