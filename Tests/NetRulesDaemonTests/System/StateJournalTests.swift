import Foundation
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// The daemon's state journal: appended lines, what a crash leaves, and replaying lines over the
/// state file.
@Suite(.timeLimit(.minutes(1)))
struct StateJournalTests {
    static func rule(_ fingerprint: String, confirmed: Bool?, cooldown: Double? = nil) -> PersistedState.SavedRule {
        PersistedState.SavedRule(fingerprint: fingerprint, confirmed: confirmed, cooldownUntil: cooldown, hold: nil)
    }

    static func firing(_ id: String, next: Int = 0) -> PersistedState.SavedFiring {
        PersistedState.SavedFiring(
            id: id, rule: "office", fingerprint: "f1", edge: .enter, time: "2026-12-01T09:00:00Z",
            facts: [("ssid", .value(.string("Office")))], actionCount: 2, nextAction: next)
    }

    @Test func aLineHoldsOnlyWhatChangedAndReplayingItRestoresTheState() throws {
        var before = PersistedState()
        before.rules = ["office": Self.rule("f1", confirmed: false), "home": Self.rule("f2", confirmed: true)]
        var after = before
        after.rules["office"] = Self.rule("f1", confirmed: true, cooldown: 1_796_115_600)
        after.rules["home"] = nil
        after.rules["vpn"] = Self.rule("f3", confirmed: false)
        after.inflight = [Self.firing("p-1")]
        after.nextFiringNumber = 2

        // Lines as the daemon builds them: rules diffed, firings from InflightFirings' changes.
        var inflight = InflightFirings()
        inflight.append(Self.firing("p-1"))
        let line = JournalDelta(
            nextFiring: 2, rules: (before.rules, after.rules), inflight: inflight.takeChanges()
        ).encoded()
        let decoded = try JournalDelta(decoding: line)
        #expect(Set(decoded.rules.keys) == ["office", "vpn"])
        #expect(decoded.removedRules == ["home"])
        #expect(decoded.inflight.map(\.id) == ["p-1"])
        // The next line: the firing got further, then another one retired it.
        var later = after
        later.inflight = [Self.firing("p-1", next: 1), Self.firing("p-2")]
        inflight.advance("p-1", to: 1)
        inflight.append(Self.firing("p-2"))
        let further = try JournalDelta(
            decoding: JournalDelta(nextFiring: 2, rules: nil, inflight: inflight.takeChanges()).encoded())
        #expect(further.inflight.map(\.id) == ["p-1", "p-2"] && further.retiredFirings.isEmpty)
        var last = later
        last.inflight = [Self.firing("p-2")]
        inflight.retire("p-1")
        let retired = try JournalDelta(
            decoding: JournalDelta(nextFiring: 2, rules: nil, inflight: inflight.takeChanges()).encoded())
        #expect(retired.inflight.isEmpty && retired.retiredFirings == ["p-1"])
        var all = before
        for line in [decoded, further, retired] { all.apply(line) }
        #expect(all.encoded() == last.encoded())
        var replayed = before
        replayed.apply(decoded)
        #expect(replayed.encoded() == after.encoded())
        // A line replayed over a state that already holds it changes nothing.
        replayed.apply(decoded)
        #expect(replayed.encoded() == after.encoded())
    }

    @Test func inflightFiringsReportOnlyWhatChangedInFiringOrder() {
        var inflight = InflightFirings([Self.firing("a"), Self.firing("b")])
        #expect(inflight.takeChanges().changed.isEmpty, "restored firings are already recorded")
        for id in ["c", "d", "e"] { inflight.append(Self.firing(id)) }
        inflight.advance("a", to: 1)
        inflight.retire("b")
        inflight.retire("d")
        let changes = inflight.takeChanges()
        #expect(changes.changed.map(\.id) == ["a", "c", "e"])
        #expect(changes.retired == ["b", "d"])
        #expect(inflight.takeChanges().changed.isEmpty)
        #expect(inflight.all.map(\.id) == ["a", "c", "e"] && inflight["a"]?.nextAction == 1)
        let version = inflight.version
        inflight.advance("a", to: 1)
        #expect(inflight.version == version, "no change, no new version")
        for n in 0..<1_000 { inflight.append(Self.firing("x\(n)")) }
        for n in 0..<1_000 { inflight.retire("x\(n)") }
        #expect(inflight.all.map(\.id) == ["a", "c", "e"] && inflight.count == 3)
    }

    @Test func firingsOfOneUpdateShareOneFactSnapshot() throws {
        var state = PersistedState()
        state.inflight = [Self.firing("p-1"), Self.firing("p-2"), Self.firing("p-3")]
        state.inflight[2].facts = [("ssid", .absent)]
        let text = String(decoding: state.encoded(), as: UTF8.self)
        #expect(text.components(separatedBy: #""ssid""#).count - 1 == 2, "one snapshot per distinct fact set: \(text)")
        let decoded = try PersistedState(decoding: state.encoded())
        #expect(decoded.encoded() == state.encoded())
        #expect(
            decoded.inflight.map { $0.facts.map(\.1) } == [
                [.value(.string("Office"))], [.value(.string("Office"))], [.absent],
            ])
    }

    @Test func aStateFileFromBeforeSnapshotsStillLoads() throws {
        let old =
            #"{"inflight":[{"actions":1,"edge":"enter","facts":{"ssid":{"s":"Office"}},"fingerprint":"f1","id":"p-1","next_action":0,"rule":"office","time":"2026-12-01T09:00:00Z"}],"next_firing":2,"rules":{},"version":1}"#
        let decoded = try PersistedState(decoding: Array(old.utf8))
        #expect(decoded.inflight.first?.facts.map(\.1) == [.value(.string("Office"))])
    }

    @Test func appendedLinesReadBackAndATornLastLineIsLeftOut() throws {
        let directory = TemporaryDirectory("netrules-journal")
        defer { directory.remove() }
        let journal = try StateJournal(directory: directory.path, segment: 1, lines: 0)
        #expect(journal.path == directory.file("journal.1.jsonl"))
        try journal.append(Array(#"{"version":1,"a":1}"#.utf8))
        try journal.append(Array(#"{"version":1,"a":2}"#.utf8))
        #expect(journal.lineCount == 2)
        // A write cut off by a crash: no newline at the end.
        let handle = try #require(FileHandle(forWritingAtPath: journal.path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"version":1,"a"#.utf8))
        try handle.close()
        let lines = try StateJournal.readLines(at: journal.path)
        #expect(
            lines.map { String(decoding: $0, as: UTF8.self) } == [#"{"version":1,"a":1}"#, #"{"version":1,"a":2}"#])
        var info = stat()
        #expect(stat(journal.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func rotatingMovesAppendsToTheNextSegmentAndLeavesTheOldOneWhole() throws {
        let directory = TemporaryDirectory("netrules-journal")
        defer { directory.remove() }
        let journal = try StateJournal(directory: directory.path, segment: 1, lines: 0)
        try journal.append(Array(#"{"n":0}"#.utf8))
        #expect(try journal.rotate() == 2)
        #expect(journal.lineCount == 0 && journal.path == directory.file("journal.2.jsonl"))
        try journal.append(Array(#"{"n":1}"#.utf8))
        #expect(try StateJournal.readLines(at: directory.file("journal.1.jsonl")).count == 1)
        #expect(
            try StateJournal.readLines(at: journal.path).map { String(decoding: $0, as: UTF8.self) } == [#"{"n":1}"#])
        #expect(try StateJournal.segments(in: directory.path) == [1, 2])
    }

    @Test func aReopenedJournalAppendsAfterItsLinesAndCountsFromThem() throws {
        let directory = TemporaryDirectory("netrules-journal")
        defer { directory.remove() }
        do {
            let journal = try StateJournal(directory: directory.path, segment: 1, lines: 0)
            for n in 0..<3 { try journal.append(Array("{\"n\":\(n)}".utf8)) }
            journal.flushNow()
        }
        // The daemon reads the lines to restore its state, then opens the journal with their count.
        let existing = try StateJournal.readLines(at: directory.file("journal.1.jsonl"))
        #expect(existing.count == 3)
        let reopened = try StateJournal(directory: directory.path, segment: 1, lines: existing.count)
        try reopened.append(Array(#"{"n":3}"#.utf8))
        #expect(reopened.lineCount == 4)
        #expect(try StateJournal.readLines(at: directory.file("journal.1.jsonl")).count == 4)
    }

    @Test func aSymlinkInPlaceOfTheJournalIsRefused() throws {
        let directory = TemporaryDirectory("netrules-journal")
        defer { directory.remove() }
        #expect(symlink("/etc/passwd", directory.file("journal.1.jsonl")) == 0)
        #expect(throws: (any Error).self) { try StateJournal(directory: directory.path, segment: 1, lines: 0) }
    }

    @Test(
        arguments: [
            ("journal.jsonl", 0), ("journal.1.jsonl", 1), ("journal.42.jsonl", 42), ("journal.x.jsonl", nil),
            ("journal.01.jsonl", nil), ("journal.0.jsonl", nil), ("journal..jsonl", nil), ("journal.-1.jsonl", nil),
            ("journal.1.jsonl.tmp", nil), ("journal.99999999999999999999.jsonl", nil), ("state.json", nil),
        ] as [(String, Int?)])
    func aSegmentIsNamedByItsNumber(name: String, number: Int?) {
        #expect(StateJournal.segment(named: name) == number)
    }
}
