@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// The persisted state in the state directory: `state.json` (replaced atomically) and the
/// append-only `journal.jsonl` after it (design note 0004, item 3).
package final class StateFiles: StateStore {
    let directory: String
    let logger: Logger
    /// Names a state file set aside: `state.json.bad-<this>`.
    let startTime: Int
    private(set) var journal: StateJournal?

    package init(directory: String, logger: Logger, startTime: Int) {
        self.directory = directory
        self.logger = logger
        self.startTime = startTime
    }

    var stateFile: String { directory + "/" + PersistedState.fileName }
    var journalFile: String { directory + "/" + StateJournal.fileName }

    /// `state.json` with the journal's lines after it applied; a `state.json` that does not decode
    /// is set aside, a damaged journal line skipped.
    package func open() -> (state: PersistedState?, journalOpen: Bool) {
        var bytes: [UInt8]?
        do {
            bytes = try FileContents.read(stateFile)
        } catch {
            setAside(because: "it cannot be read: \(error)")
        }
        var lines: [[UInt8]] = []
        do {
            lines = try StateJournal.readLines(at: journalFile)
        } catch {
            logger.log(.error, "cannot read the state journal '\(journalFile)' (its changes are lost)", error: error)
        }
        let (restored, problem, skipped) = PersistedState.restore(stateFile: bytes, journal: lines)
        if let problem { setAside(because: "it is not a netrules state file: \(problem)") }
        if skipped > 0 { logger.warning("skipped \(skipped) damaged line(s) of the state journal '\(journalFile)'") }
        do {
            journal = try StateJournal(directory: directory, lines: lines.count)
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
            throw StateFileError(.writeFailed, "cannot append to '\(journalFile)'", cause: error)
        }
    }

    package func requestFlush() {
        journal?.requestFlush()
    }

    /// Replaces `state.json` atomically (flushed to the disk while the journal is open, since the
    /// journal is emptied behind it), then empties the journal.
    package func writeSnapshot(_ state: PersistedState) throws {
        do {
            try AtomicFile.replace(stateFile, with: state.encoded(), mode: 0o600, sync: journal != nil)
        } catch {
            throw StateFileError(.writeFailed, "cannot write '\(stateFile)'", cause: error)
        }
        do {
            try journal?.truncate()
        } catch {
            logger.log(.error, "cannot empty the state journal '\(journalFile)'", error: error)
        }
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
