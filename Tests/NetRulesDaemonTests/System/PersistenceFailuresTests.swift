@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesDaemon

/// Failures to write the state directory as events: one line when a streak starts, one when every
/// kind of write that failed works again, and a failed fdatasync(2) of the journal seen at all.
@Suite(.timeLimit(.minutes(1)))
struct PersistenceFailuresTests {
    @Test func aStreakIsLoggedWhenItStartsAndWhenTheLastFailingKindWorksAgain() {
        let sink = CapturingLogSink()
        let failures = PersistenceFailures(directory: "/state", logger: sink.logger())
        failures.succeeded(.journal)
        #expect(sink.records.isEmpty && !failures.isFailing)
        let full = SystemCallError(call: "write", errno: Errno(rawValue: ENOSPC))
        for _ in 0..<1_000 { failures.failed(.journal, "cannot append to '/state/journal.2.jsonl'", error: full) }
        failures.failed(.snapshot, "cannot write '/state/state.json'", error: full)
        failures.failed(.snapshot, "cannot write '/state/state.json'", error: full)
        #expect(
            sink.messages == [
                "the state directory '/state' is not writable: cannot append to '/state/journal.2.jsonl': "
                    + "'write' failed: (28) No space left on device; the state is kept in memory and written again "
                    + "at the next change, with nothing more about this in the log until a write works"
            ])
        #expect(sink.records.first?.level == .error)
        failures.succeeded(.snapshot)
        failures.succeeded(.history)
        #expect(sink.records.count == 1 && failures.isFailing, "the journal has not worked yet")
        failures.succeeded(.journal)
        failures.succeeded(.journal)
        #expect(
            sink.messages.last
                == "the state directory '/state' is writable again and the saved state is current; while it was not, "
                + "1000 journal appends and 2 snapshots failed")
        #expect(sink.records.count == 2 && sink.records.last?.level == .notice && !failures.isFailing)
        // A new streak is reported again.
        failures.failed(.history, "cannot rewrite the history file '/state/history.jsonl'", error: full)
        #expect(sink.records.count == 3)
        failures.succeeded(.history)
        #expect(sink.messages.last?.hasSuffix("while it was not, 1 history write failed") == true)
    }

    /// fdatasync(2) of a FIFO fails with EINVAL: a real failed flush, reported once with the path,
    /// then the next append fails with it (so the daemon writes a snapshot holding what the lines
    /// held); the streak goes on, silent, while the flushes keep failing.
    @Test func aFailedFlushIsReportedOnceAndFailsTheNextAppend() throws {
        let directory = TemporaryDirectory("netrules-flush")
        defer { directory.remove() }
        let fifo = directory.file("journal.1.jsonl")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A reader, so that the journal's O_WRONLY open does not wait for one.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(reader >= 0)
        defer { close(reader) }
        let sink = CapturingLogSink()
        let failures = PersistenceFailures(directory: directory.path, logger: sink.logger())
        let journal = try StateJournal(directory: directory.path, segment: 1, lines: 0, failures: failures)
        try journal.append(Array(#"{"n":1}"#.utf8))
        journal.flushNow()
        journal.flushNow()
        #expect(sink.records.count == 1, "\(sink.messages)")
        #expect(
            sink.messages.first?.contains(
                "cannot flush '\(fifo)' to the disk: 'fdatasync' failed: (22) Invalid argument")
                == true, "\(sink.messages)")
        #expect {
            try journal.append(Array(#"{"n":2}"#.utf8))
        } throws: { error in
            (error as? SystemCallError)?.call == "fdatasync"
        }
        #expect(journal.lineCount == 1, "the line was not appended")
        // Heard once: the next append goes through (the snapshot the daemon writes covers the rest).
        try journal.append(Array(#"{"n":3}"#.utf8))
        #expect(journal.lineCount == 2 && failures.isFailing && sink.records.count == 1)
    }
}
