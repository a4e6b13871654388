import Synchronization

/// What `outbox/failed/` holds, oldest first, so that rotating it after every move costs no
/// directory scan: with a thousand files kept, a scan (a `stat` of each) after every drop made the
/// drops, not the deliveries, what a flapping network waited on.
///
/// The first rotation scans the directory; the outbox's own moves are appended as they happen; and
/// the directory is scanned again after `rescanInterval` moves, so files a person deleted or added
/// are seen within that many. A rotation may therefore, between two scans, count a file a person
/// already deleted (and keep one file fewer than it could), never more files than it should.
///
/// Thread-safe: the outbox's moves and rotations run on dedicated threads, several at once.
final class FailedIndex: Sendable {
    /// One file of `failed/`: its name and when it got there (its modification time).
    struct File: Sendable {
        var name: String
        /// Nanoseconds since the epoch.
        var modified: Int64
    }

    /// A file to delete, and whether its age (rather than the count) is why.
    struct Victim: Sendable {
        var name: String
        var expired: Bool
    }

    private struct State {
        var files: [File] = []
        var head = 0
        var scanned = false
        var movesSinceScan = 0
    }

    private let state = Mutex(State())

    /// Moves between two scans.
    let rescanInterval: Int

    init(rescanInterval: Int = 1_000) { self.rescanInterval = max(1, rescanInterval) }

    /// A file the outbox just moved to `failed/`, at `now` (nanoseconds since the epoch).
    func recordMove(name: String, at now: Int64) {
        state.withLock { state in
            guard state.scanned else { return }
            state.files.append(File(name: name, modified: now))
            state.movesSinceScan += 1
        }
    }

    /// Takes out of the index the files older than `cutoff`, then the oldest beyond `keeping`.
    /// - Parameter scan: lists the directory's files (in any order), when the index needs it.
    func takeVictims(keeping: Int, olderThan cutoff: Int64, scan: () -> [File]) -> [Victim] {
        state.withLock { state in
            if !state.scanned || state.movesSinceScan >= rescanInterval {
                // Under the lock, so no move is lost between the listing and the index.
                state.files = scan().sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
                state.head = 0
                state.scanned = true
                state.movesSinceScan = 0
            }
            var victims: [Victim] = []
            while state.head < state.files.count {
                let file = state.files[state.head]
                let expired = file.modified < cutoff
                guard expired || state.files.count - state.head > keeping else { break }
                victims.append(Victim(name: file.name, expired: expired))
                state.head += 1
            }
            if state.head > 64, state.head * 2 > state.files.count {
                state.files.removeFirst(state.head)
                state.head = 0
            }
            return victims
        }
    }
}
