@preconcurrency import Glibc
import NetRulesCore
import NetRulesDaemonCore
import NetRulesSystem
import Synchronization

/// Writes `state.json` snapshots on the blocking pool, one at a time, so the daemon's loop never
/// waits for a disk flush.
///
/// A snapshot is written atomically and durably (`AtomicFile.replace` with fsync), then the journal
/// segments it covers (those before `Job.covers`) are deleted and the directory is fsynced. Only one
/// job runs at a time (`SerialPoolJobs`): a snapshot asked for while one is written waits for it,
/// and replaces any snapshot still waiting (the newer state covers everything the older one did,
/// and more).
///
/// A snapshot that cannot be written is reported to its job (the daemon retries) and to `failures`,
/// which logs it once per streak.
///
/// Safe from any thread; the daemon actor submits, a pool thread writes.
final class SnapshotWriter: Sendable {
    /// One snapshot to write.
    struct Job: Sendable {
        /// `state.json`'s new contents.
        var bytes: [UInt8]
        /// The first journal segment the snapshot does not hold: every segment before it is deleted
        /// once the snapshot is durable.
        var covers: Int
        /// Hears why the snapshot could not be written (on a pool thread).
        var failed: @Sendable (StateFileError) -> Void
    }

    let directory: String
    private let logger: Logger
    private let failures: PersistenceFailures
    /// The newest snapshot not written yet: a job finds it, or finds it taken by the job before.
    private let waiting = Mutex<Job?>(nil)
    private let jobs = SerialPoolJobs()

    init(directory: String, logger: Logger, failures: PersistenceFailures) {
        self.directory = directory
        self.logger = logger
        self.failures = failures
    }

    var stateFile: String { directory + "/" + PersistedState.fileName }

    /// Writes `job` on the pool: now, or after the one being written (replacing one that waits).
    func submit(_ job: Job) {
        waiting.withLock { $0 = job }
        jobs.submit { [self] in
            if let job = waiting.withLock({ $0.take() }) { write(job) }
        }
    }

    /// Waits until no snapshot is being written or waiting (for shutdown and tests).
    func finished() async {
        await jobs.idle()
    }

    private func write(_ job: Job) {
        do {
            try AtomicFile.replace(stateFile, with: job.bytes, mode: 0o600, sync: true)
        } catch {
            failures.failed(.snapshot, "cannot write '\(stateFile)'", error: error)
            job.failed(StateFileError(.writeFailed, "cannot write '\(stateFile)'", cause: error))
            return
        }
        failures.succeeded(.snapshot)
        // What is left behind here is harmless: the snapshot names the first segment it does not
        // hold, so a covered segment is never read again, and the next snapshot deletes it.
        let covered: [Int]
        do {
            covered = try StateJournal.segments(in: directory).filter { $0 < job.covers }
        } catch {
            logger.log(
                .error, "cannot list the state directory '\(directory)' to delete old journal segments", error: error)
            return
        }
        guard !covered.isEmpty else { return }
        for segment in covered {
            let path = StateJournal.path(ofSegment: segment, in: directory)
            switch sys_unlink(path) {
            case .success, .failure(.noSuchFileOrDirectory): break
            case .failure(let errno):
                logger.log(
                    .error, "cannot delete the state journal segment '\(path)'",
                    error: SystemCallError(call: "unlink", errno: errno))
            }
        }
        do {
            try AtomicFile.syncDirectory(directory)
        } catch {
            logger.log(.error, "cannot flush the state directory '\(directory)'", error: error)
        }
    }
}
