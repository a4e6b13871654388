import NetRulesCore
import NetRulesDaemonCore
import NetRulesSystem
import Synchronization

/// The history file's writes, in the order they were asked for, on the blocking pool: the
/// daemon's loop only queues them (`FiringHistory` decides what to write and when to compact).
///
/// An entry's line is encoded by the job, and a compaction (a rewrite of up to `limit` lines)
/// runs there too, so neither the encoding nor the write(2)s nor the rename cost the loop. The
/// jobs run one at a time, in order (`SerialPoolJobs`), so a line appended after a rewrite is
/// asked for lands in the new file, never in the old one the rename replaces.
///
/// A write that fails is reported to `failures`, which logs it once until the state directory's
/// writes work again; a failed append makes the next write a rewrite from memory (`needsRewrite`),
/// since part of a line may be in the file.
///
/// A rewrite holds every entry: what was queued before it and has not run yet is skipped (an
/// append, an older rewrite), so a slow or failing disk costs one rewrite, not one per firing.
///
/// Safe from any thread; the daemon actor queues, a pool thread writes.
final class HistoryFileWriter: Sendable {
    /// What to write.
    enum Operation: Sendable {
        /// One entry as one more line.
        case append(HistoryEntry)
        /// The whole file: these entries, one line each.
        case rewrite([HistoryEntry])
    }

    private struct State {
        /// An append failed: the next write must be a rewrite.
        var needsRewrite = false
        /// The number of the last rewrite asked for; an operation asked for before it is skipped.
        var latestRewrite: UInt64 = 0
        /// Rewrites asked for that have not run (or been skipped) yet.
        var rewritesQueued = 0
    }

    private let file: Mutex<AppendLog>
    private let state = Mutex(State())
    private let jobs = SerialPoolJobs()
    private let failures: PersistenceFailures

    init(path: String, failures: PersistenceFailures) {
        file = Mutex(AppendLog(path: path))
        self.failures = failures
    }

    /// Whether the file must be rewritten before it is appended to (an append failed) and no
    /// rewrite is on its way.
    var needsRewrite: Bool { state.withLock { $0.needsRewrite && $0.rewritesQueued == 0 } }

    /// Queues `operation` after the ones queued before it.
    func submit(_ operation: Operation) {
        let generation = state.withLock { state -> UInt64 in
            if case .rewrite = operation {
                state.latestRewrite += 1
                state.rewritesQueued += 1
            }
            return state.latestRewrite
        }
        jobs.submit { [self] in
            let superseded = state.withLock { state -> Bool in
                if case .rewrite = operation { state.rewritesQueued -= 1 }
                return generation < state.latestRewrite
            }
            if !superseded { write(operation) }
        }
    }

    /// Waits until everything queued so far is written (for shutdown and tests).
    func written() async {
        await jobs.idle()
    }

    private func write(_ operation: Operation) {
        let outcome: Result<Void, SystemCallError>
        switch operation {
        case .append(let entry):
            // The rewrite the loop queues once it sees `needsRewrite` holds this entry too.
            if state.withLock({ $0.needsRewrite }) { return }
            guard let line = FiringHistory.line(entry) else { return }
            outcome = file.withLock { log in
                do throws(SystemCallError) {
                    try log.append(line)
                    return .success(())
                } catch {
                    // A partial line may be there now: the next write starts over with a whole file.
                    log.close()
                    return .failure(error)
                }
            }
        case .rewrite(let entries):
            let lines = entries.compactMap(FiringHistory.line)
            outcome = file.withLock { log in
                do throws(SystemCallError) {
                    try log.rewrite(lines: lines)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
        }
        state.withLock { state in
            switch (outcome, operation) {
            case (.success, .rewrite): state.needsRewrite = false
            case (.failure, .append): state.needsRewrite = true
            default: break
            }
        }
        switch outcome {
        case .success:
            failures.succeeded(.history)
        case .failure(let error):
            let what = if case .append = operation { "append to" } else { "rewrite" }
            failures.failed(.history, "cannot \(what) the history file '\(file.withLock { $0.path })'", error: error)
        }
    }
}
