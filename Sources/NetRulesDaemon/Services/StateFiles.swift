import FoundationEssentials
@preconcurrency import Glibc
import NetRulesActions
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
        var restored: PersistedState?
        if let data = FileManager.default.contents(atPath: stateFile) {
            let (decoded, problem) = PersistedState.decode(Array(data))
            if decoded == nil { setAside(because: problem ?? "it cannot be read") }
            restored = decoded
        }
        var skipped = 0
        let lines = StateJournal.readLines(at: journalFile)
        for line in lines {
            guard let change = PersistedState.decode(line).state else {
                skipped += 1
                continue
            }
            restored = restored ?? PersistedState()
            restored!.apply(change)
        }
        if skipped > 0 { logger.warning("skipped \(skipped) damaged line(s) of the state journal '\(journalFile)'") }
        do {
            journal = try StateJournal(directory: directory, lines: lines.count)
        } catch {
            logger.error("cannot open the state journal: \(error); every change will rewrite state.json")
        }
        return (restored, journal != nil)
    }

    /// One write(2): it survives a SIGKILL at any instant; `requestFlush()` makes it durable.
    package func append(_ line: PersistedState) throws {
        guard let journal else { throw SystemCallError(call: "write", errno: Errno(rawValue: EBADF)) }
        try journal.append(line.encoded())
    }

    package func requestFlush() {
        journal?.requestFlush()
    }

    /// Replaces `state.json` atomically (flushed to the disk while the journal is open, since the
    /// journal is emptied behind it), then empties the journal.
    package func writeSnapshot(_ state: PersistedState) throws {
        try DurableFile.replace(stateFile, with: state.encoded(), mode: 0o600, sync: journal != nil)
        do {
            try journal?.truncate()
        } catch {
            logger.error("cannot empty the state journal: \(error)")
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
