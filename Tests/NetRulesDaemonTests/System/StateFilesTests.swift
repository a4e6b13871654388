import Foundation
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// `state.json` and the journal's segments as the daemon leaves them in its state directory: the
/// snapshot written off the loop, the segments it holds deleted after it, and what a crash at any
/// step leaves restoring everything.
@Suite(.timeLimit(.minutes(1)))
struct StateFilesTests {
    static func rule(_ confirmed: Bool) -> PersistedState.SavedRule {
        PersistedState.SavedRule(fingerprint: "f1", confirmed: confirmed, cooldownUntil: nil, hold: nil)
    }

    /// A journal line setting rule `name` to `confirmed` and the next firing number to `next`.
    static func line(_ name: String, _ confirmed: Bool, next: Int = 1) -> JournalDelta {
        var line = JournalDelta()
        line.rules = [name: rule(confirmed)]
        line.nextFiringNumber = next
        return line
    }

    static func state(_ rules: [String: Bool], next: Int = 1) -> PersistedState {
        var state = PersistedState()
        state.rules = rules.mapValues(rule)
        state.nextFiringNumber = next
        return state
    }

    static func names(in directory: TemporaryDirectory) throws -> [String] {
        try sys_listDirectory(directory.path).get(call: "opendir").filter { !$0.hasPrefix(".") }.sorted()
    }

    /// What a restart reads, through the same code the daemon runs.
    static func restart(_ directory: TemporaryDirectory, sink: CapturingLogSink = CapturingLogSink()) -> (
        state: PersistedState?, files: StateFiles
    ) {
        let files = StateFiles(directory: directory.path, logger: sink.logger(), startTime: 1)
        return (files.open().state, files)
    }

    static func failNever(_ error: StateFileError) { Issue.record("the snapshot failed: \(error)") }

    @Test func segmentsTheSnapshotHoldsAreDeletedOnceItIsDurable() async throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        let (restored, files) = Self.restart(directory)
        #expect(restored == nil)
        try files.append(Self.line("office", true))
        try files.append(Self.line("home", false))
        #expect(try Self.names(in: directory) == ["journal.1.jsonl"])
        files.writeSnapshot(Self.state(["office": true, "home": false]), failed: Self.failNever)
        // Appends go on into the new segment at once, while the snapshot is written.
        try files.append(Self.line("office", false))
        await files.finishWriting()
        #expect(try Self.names(in: directory) == ["journal.2.jsonl", "state.json"])
        let saved = try PersistedState(decoding: try #require(try FileContents.read(directory.file("state.json"))))
        #expect(saved.journalFrom == 2)
        var info = stat()
        #expect(stat(directory.file("state.json"), &info) == 0 && info.st_mode & 0o777 == 0o600)
        let (again, _) = Self.restart(directory)
        #expect(again?.rules == ["office": Self.rule(false), "home": Self.rule(false)])
    }

    @Test func aCrashBetweenRotationAndTheSnapshotsRenameRestoresEverything() async throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        do {
            let (_, files) = Self.restart(directory)
            try files.append(Self.line("office", true, next: 2))
            files.writeSnapshot(Self.state(["office": true], next: 2), failed: Self.failNever)
            await files.finishWriting()
            try files.append(Self.line("home", true, next: 3))
            // The next compaction got as far as its rotation: the process died before the rename.
            _ = try #require(files.journal).rotate()
            try files.append(Self.line("office", false, next: 4))
        }
        #expect(try Self.names(in: directory) == ["journal.2.jsonl", "journal.3.jsonl", "state.json"])
        let (restored, files) = Self.restart(directory)
        #expect(restored?.rules == ["office": Self.rule(false), "home": Self.rule(true)])
        #expect(restored?.nextFiringNumber == 4)
        // The restarted journal appends after every segment there.
        #expect(files.journal?.segment == 4)
    }

    @Test func aSegmentTheSnapshotHoldsIsNotReplayedOverIt() throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        // The start dropped a firing of a changed rule: the snapshot holds less than segment 1, and
        // the process died before segment 1 was deleted.
        var line = JournalDelta()
        line.inflight = [
            PersistedState.SavedFiring(
                id: "p-1", rule: "office", fingerprint: "old", edge: .enter, time: "2026-12-01T09:00:00Z",
                facts: [], actionCount: 1)
        ]
        line.nextFiringNumber = 2
        try StateJournal(directory: directory.path, segment: 1, lines: 0).append(line.encoded())
        var snapshot = Self.state(["office": true], next: 2)
        snapshot.journalFrom = 2
        try AtomicFile.replace(directory.file("state.json"), with: snapshot.encoded(), mode: 0o600, sync: false)
        let (restored, _) = Self.restart(directory)
        #expect(restored?.inflight.isEmpty == true, "the dropped firing stays dropped")
        // A state file from before segments names none: every line after it is replayed, and a line
        // the state already holds changes nothing (the lines set values).
        var old = Self.state(["office": true], next: 2)
        old.inflight = line.inflight
        let replayed = PersistedState.restore(stateFile: old.encoded(), journal: [line.encoded(), line.encoded()])
        #expect(replayed.state?.encoded() == old.encoded())
    }

    @Test func theOldSingleJournalIsReadAsTheOldestSegmentAndDeletedAfterTheSnapshot() async throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        // netrules before segments: state.json without `journal_from`, lines in journal.jsonl.
        try AtomicFile.replace(
            directory.file("state.json"), with: Self.state(["office": false]).encoded(), mode: 0o600, sync: false)
        let legacy = [Self.line("office", true), Self.line("home", true)].map { $0.encoded() + [0x0A] }
        try AtomicFile.replace(directory.file("journal.jsonl"), with: Array(legacy.joined()), mode: 0o600, sync: false)
        // A segment after it (a crash of the first new version before its first snapshot).
        try StateJournal(directory: directory.path, segment: 1, lines: 0).append(Self.line("home", false).encoded())
        let sink = CapturingLogSink()
        let (restored, files) = Self.restart(directory, sink: sink)
        #expect(restored?.rules == ["office": Self.rule(true), "home": Self.rule(false)], "journal.jsonl first")
        #expect(sink.messages.isEmpty, "\(sink.messages)")
        files.writeSnapshot(try #require(restored), failed: Self.failNever)
        await files.finishWriting()
        // Segment 2, opened at the start, holds no line yet: the snapshot holds what is before it.
        #expect(try Self.names(in: directory) == ["journal.2.jsonl", "state.json"])
    }

    @Test func oddlyNamedFilesBesideTheJournalAreNeitherReadNorDeleted() async throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        let odd = ["journal.x.jsonl", "journal.01.jsonl", "journal..jsonl", "journal.-1.jsonl"]
        for name in odd { directory.write(name, "not json\n") }
        let sink = CapturingLogSink()
        let (restored, files) = Self.restart(directory, sink: sink)
        #expect(restored == nil && sink.messages.isEmpty, "\(sink.messages)")
        #expect(files.journal?.segment == 1)
        files.writeSnapshot(Self.state(["office": true]), failed: Self.failNever)
        await files.finishWriting()
        #expect(try Self.names(in: directory) == (odd + ["journal.1.jsonl", "state.json"]).sorted())
    }

    @Test func aSegmentThatCannotBeReadIsReportedAndAppendsGoAfterIt() throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        try StateJournal(directory: directory.path, segment: 1, lines: 0).append(Self.line("office", true).encoded())
        #expect(mkdir(directory.file("journal.3.jsonl"), 0o700) == 0)
        let sink = CapturingLogSink()
        let (restored, files) = Self.restart(directory, sink: sink)
        #expect(restored?.rules == ["office": Self.rule(true)])
        #expect(sink.messages.contains { $0.contains("cannot read the state journal") }, "\(sink.messages)")
        #expect(files.journal?.segment == 4)
    }

    @Test func aSnapshotThatCannotBeWrittenIsReportedAndKeepsTheSegments() async throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        let (_, files) = Self.restart(directory)
        try files.append(Self.line("office", true))
        // A directory where state.json goes: AtomicFile refuses to replace it.
        #expect(mkdir(directory.file("state.json"), 0o700) == 0)
        let failures = Mutex<[StateFileError]>([])
        files.writeSnapshot(Self.state(["office": true])) { error in failures.withLock { $0.append(error) } }
        await files.finishWriting()
        let reported = failures.withLock { $0 }
        #expect(reported.count == 1 && reported.first?.code == .writeFailed, "\(reported)")
        #expect(try Self.names(in: directory) == ["journal.1.jsonl", "journal.2.jsonl", "state.json"])
    }

    /// A snapshot starts a new segment only after the one appended to holds a line: snapshots
    /// retried while every append fails (a full disk) leave no trail of empty segments.
    @Test func snapshotsOfAnEmptySegmentStartNoNewOne() async throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        let (_, files) = Self.restart(directory)
        for n in 1...50 { files.writeSnapshot(Self.state(["office": n % 2 == 0], next: n), failed: Self.failNever) }
        await files.finishWriting()
        #expect(try Self.names(in: directory) == ["journal.1.jsonl", "state.json"])
        // Lines appended after such a snapshot follow it, in the same segment.
        try files.append(Self.line("office", false, next: 51))
        let restored = PersistedState.restore(
            stateFile: try FileContents.read(directory.file("state.json")),
            segments: [(1, try StateJournal.readLines(at: directory.file("journal.1.jsonl")))]
        ).state
        #expect(restored?.rules == ["office": Self.rule(false)] && restored?.nextFiringNumber == 51)
        files.writeSnapshot(Self.state(["office": false], next: 51), failed: Self.failNever)
        await files.finishWriting()
        #expect(try Self.names(in: directory) == ["journal.2.jsonl", "state.json"])
    }

    /// A snapshot after lines that cannot start a segment of its own is not written: replayed
    /// after it, those older lines would undo what it holds (what a failed append did not write).
    @Test func aSnapshotThatCannotStartASegmentIsNotWrittenAndSaysSo() async throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        let sink = CapturingLogSink()
        let (_, files) = Self.restart(directory, sink: sink)
        try files.append(Self.line("office", true))
        #expect(mkdir(directory.file("journal.2.jsonl"), 0o700) == 0)
        let failures = Mutex<[StateFileError]>([])
        files.writeSnapshot(Self.state(["office": false])) { error in failures.withLock { $0.append(error) } }
        await files.finishWriting()
        #expect(failures.withLock { $0.count } == 1)
        #expect(try Self.names(in: directory) == ["journal.1.jsonl", "journal.2.jsonl"], "no state.json")
        #expect(sink.records.count == 1 && files.failures.isFailing, "\(sink.messages)")
        #expect(
            sink.messages.first?.contains("cannot create the journal segment '\(directory.file("journal.2.jsonl"))'")
                == true, "\(sink.messages)")
    }

    @Test func theLastOfManySnapshotsAskedForAtOnceIsTheOneOnDisk() async throws {
        let directory = TemporaryDirectory("netrules-statefiles")
        defer { directory.remove() }
        let (_, files) = Self.restart(directory)
        for n in 1...20 {
            try files.append(Self.line("r\(n)", true, next: n))
            files.writeSnapshot(
                Self.state(Dictionary(uniqueKeysWithValues: (1...n).map { ("r\($0)", true) }), next: n),
                failed: Self.failNever)
        }
        await files.finishWriting()
        let saved = try PersistedState(decoding: try #require(try FileContents.read(directory.file("state.json"))))
        #expect(saved.nextFiringNumber == 20 && saved.rules.count == 20 && saved.journalFrom == 21)
        #expect(try Self.names(in: directory) == ["journal.21.jsonl", "state.json"])
    }
}
