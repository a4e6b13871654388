import NetRulesCore
import Synchronization

/// The daemon's writes to its state directory that are failing, reported as two events: the
/// first failure of a streak, and its end.
///
/// On a full disk every change of state fails to be written, hundreds of times a second; a log
/// line for each would bury everything else (and fill another disk). So the first failure is
/// logged at `error`, with the file and the system call's errno, and every other failure is only
/// counted until each kind of write that failed has worked again (an append to the journal, its
/// fdatasync(2), a snapshot, a history write): then one `notice` says so, with the counts.
///
/// Safe from any thread: the daemon's loop appends, pool threads flush and write snapshots.
package final class PersistenceFailures: Sendable {
    /// A kind of write to the state directory.
    package enum Write: Hashable, Sendable, CaseIterable {
        /// An append to (or the opening of) a journal segment.
        case journal
        /// fdatasync(2) of a journal segment.
        case journalFlush
        /// A snapshot: `state.json` replaced.
        case snapshot
        /// An append to, or a rewrite of, `history.jsonl`.
        case history

        /// How the recovery line counts failures of this kind.
        func counted(_ count: Int) -> String {
            switch self {
            case .journal: count == 1 ? "1 journal append" : "\(count) journal appends"
            case .journalFlush: count == 1 ? "1 journal flush" : "\(count) journal flushes"
            case .snapshot: count == 1 ? "1 snapshot" : "\(count) snapshots"
            case .history: count == 1 ? "1 history write" : "\(count) history writes"
            }
        }
    }

    private struct Streak {
        /// The kinds that failed and have not worked since.
        var failing: Set<Write> = []
        /// Every failure of the streak, by kind.
        var failures: [Write: Int] = [:]
    }

    /// The state directory, as the log lines name it.
    package let directory: String
    private let logger: Logger
    private let streak = Mutex<Streak?>(nil)

    package init(directory: String, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    /// Whether a streak is going on: some kind of write failed and has not worked since.
    package var isFailing: Bool { streak.withLock { $0 != nil } }

    /// A write of kind `write` failed: `what` says which and where (`cannot append to '…'`), and
    /// `error` why (the `SystemCallError` with its errno). Logged only when it starts a streak.
    package func failed(_ write: Write, _ what: String, error: any Error) {
        let starts = streak.withLock { streak -> Bool in
            let starts = streak == nil
            if starts { streak = Streak() }
            streak!.failing.insert(write)
            streak!.failures[write, default: 0] += 1
            return starts
        }
        guard starts else { return }
        logger.log(
            .error,
            "the state directory '\(directory)' is not writable: \(what): \(error); the state is kept in memory and "
                + "written again at the next change, with nothing more about this in the log until a write works",
            metadata: [("error", "\(error)")])
    }

    /// A write of kind `write` worked. When it was the last kind still failing, the streak ends
    /// and is logged once.
    package func succeeded(_ write: Write) {
        let ended = streak.withLock { streak -> Streak? in
            guard streak?.failing.remove(write) != nil, streak?.failing.isEmpty == true else { return nil }
            defer { streak = nil }
            return streak
        }
        guard let ended else { return }
        let counts = Write.allCases.compactMap { kind in ended.failures[kind].map { kind.counted($0) } }
        logger.notice(
            "the state directory '\(directory)' is writable again and the saved state is current; while it was not, "
                + "\(Self.list(counts)) failed")
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "nothing" }
        return items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}
