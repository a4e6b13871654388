@preconcurrency import Glibc
import NetRulesCore
import NetRulesDaemonCore
import NetRulesSystem

/// The persisted state in the state directory: `state.json` (replaced atomically, off the loop,
/// by `SnapshotWriter`) and the journal's segments after it (`StateJournal`; design note 0004,
/// item 3).
///
/// A write that fails is reported once per streak (`failures`, shared with the history), not by
/// the daemon for each attempt.
package final class StateFiles: StateStore {
    let directory: String
    let logger: Logger
    /// Names a state file set aside: `state.json.bad-<this>`.
    let startTime: Int
    private(set) var journal: StateJournal?
    /// The first segment the next snapshot does not hold: the segment appended to.
    private var nextSegment = 1
    let writer: SnapshotWriter
    /// The writes to the state directory that fail: the journal's, the snapshots' and the history's.
    package let failures: PersistenceFailures

    package init(directory: String, logger: Logger, startTime: Int) {
        self.directory = directory
        self.logger = logger
        self.startTime = startTime
        failures = PersistenceFailures(directory: directory, logger: logger)
        writer = SnapshotWriter(directory: directory, logger: logger, failures: failures)
    }

    var stateFile: String { directory + "/" + PersistedState.fileName }
    var journalFile: String { journal?.path ?? StateJournal.path(ofSegment: nextSegment, in: directory) }

    /// `state.json` with the lines of the journal segments it does not hold applied, oldest first;
    /// a `state.json` that does not decode is set aside, a damaged journal line skipped. Appends go
    /// to a new segment after the last one there.
    package func open() -> (state: PersistedState?, journalOpen: Bool) {
        var bytes: [UInt8]?
        do {
            bytes = try FileContents.read(stateFile)
        } catch {
            setAside(because: "it cannot be read: \(error)")
        }
        var segments: [(number: Int, lines: [[UInt8]])] = []
        var last = 0
        do {
            for number in try StateJournal.segments(in: directory) {
                last = number
                let path = StateJournal.path(ofSegment: number, in: directory)
                do {
                    segments.append((number, try StateJournal.readLines(at: path)))
                } catch {
                    logger.log(.error, "cannot read the state journal '\(path)' (its changes are lost)", error: error)
                }
            }
        } catch {
            logger.log(
                .error, "cannot list the state directory '\(directory)' (the journal's changes are lost)", error: error)
        }
        let (restored, problem, skipped) = PersistedState.restore(stateFile: bytes, segments: segments)
        if let problem { setAside(because: "it is not a netrules state file: \(problem)") }
        if skipped > 0 { logger.warning("skipped \(skipped) damaged line(s) of the state journal in '\(directory)'") }
        // After every segment there, and never one the state file says it holds.
        nextSegment = max(last + 1, restored?.journalFrom ?? 1)
        do {
            journal = try StateJournal(directory: directory, segment: nextSegment, lines: 0, failures: failures)
        } catch {
            logger.log(
                .error, "cannot open the state journal '\(journalFile)' (every change will rewrite state.json)",
                error: error)
        }
        return (restored, journal != nil)
    }

    /// One write(2): it survives a SIGKILL at any instant; `requestFlush()` makes it durable.
    package func append(_ line: JournalDelta) throws {
        guard let journal else { throw StateFileError(.writeFailed, "the state journal '\(journalFile)' is not open") }
        do {
            try journal.append(line.encoded())
        } catch {
            throw StateFileError(.writeFailed, "cannot append to '\(journal.path)'", cause: error)
        }
    }

    package func requestFlush() {
        journal?.requestFlush()
    }

    /// Starts a new journal segment, unless the one appended to holds no line yet, and encodes the
    /// snapshot here; `SnapshotWriter` writes it durably on the pool and deletes the segments it
    /// holds. So snapshots retried while the disk is full (each append failing) add no segment.
    package func writeSnapshot(_ state: PersistedState, failed: @escaping @Sendable (StateFileError) -> Void) {
        if let journal {
            if journal.lineCount == 0 {
                // Nothing in it to replay: the snapshot holds the segments before it, and it follows
                // the snapshot.
                nextSegment = journal.segment
            } else {
                do {
                    nextSegment = try journal.rotate()
                } catch {
                    // Reported by the journal. Not written: replayed after it, this segment's
                    // older lines would undo what the snapshot holds and a failed append did not.
                    failed(
                        StateFileError(.writeFailed, "cannot start a new segment after '\(journal.path)'", cause: error)
                    )
                    return
                }
            }
        }
        var saved = state
        saved.journalFrom = nextSegment
        writer.submit(SnapshotWriter.Job(bytes: saved.encoded(), covers: nextSegment, failed: failed))
    }

    package nonisolated(nonsending) func finishWriting() async {
        await writer.finished()
        await journal?.flushed()
    }

    /// Renames an unusable state file to `state.json.bad-<unix time>` so the daemon starts from a
    /// fresh state (and the next start does not trip over it again); the old file stays for a human.
    package func setAside(because reason: String) {
        let aside = stateFile + ".bad-\(startTime)"
        if case .success = sys_rename(stateFile, aside) {
            logger.error(
                "the state file '\(stateFile)' is unusable (\(reason)); moved it to '\(aside)' and starting from a fresh state"
            )
        } else {
            logger.error(
                "the state file '\(stateFile)' is unusable (\(reason)) and could not be moved aside; ignoring it")
        }
    }
}
