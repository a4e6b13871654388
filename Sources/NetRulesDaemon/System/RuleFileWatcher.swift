@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem
import Synchronization

/// Reports that rule files changed, so the daemon can reload them without a `SIGHUP`.
///
/// Uses inotify(7) on the directories holding the rule files (see `RuleWatchSet` for what counts
/// as a change): in-place writes, editors' rename-over saves, deletions, mode changes, and new
/// `*.yaml` files in a watched rule directory.
///
/// Bursts are coalesced: one report comes `debounce` after the last event of a burst (an editor's
/// save is several events; `cp -r` of a directory is many), and a burst that never pauses is
/// still reported after `maximumDelay`. The report is a `Void`: the daemon re-reads everything,
/// so which file changed does not matter.
///
/// No polling and no timers while nothing changes: the task waits for the inotify descriptor
/// (`Readiness` on the loop it is given, no thread of its own), with a deadline only while a burst is
/// being coalesced; re-planning the watches after a relevant event (stat, realpath) runs on the
/// blocking pool, never on the loop.
///
/// The watches are in place when `init` returns, so a change made right after it is seen even if
/// `run` starts later. One `run` per watcher; its descriptors are closed when `run` returns.
package final class RuleFileWatcher: Sendable {
    /// How long after the last event of a burst the change is reported.
    package let debounce: Duration
    /// The longest a change waits while events keep coming.
    package let maximumDelay: Duration

    private let paths: [String]
    private let loop: ThreadExecutor
    private let files: FileWatcher
    private let watchSet: Mutex<RuleWatchSet>
    private let started = Atomic<Bool>(false)

    /// Watches `paths`, rule files and directories of rule files.
    ///
    /// - Parameters:
    ///   - paths: Rule files (which need not exist yet, as long as their directory does) and rule directories.
    ///   - loop: The event loop that waits for the inotify descriptor.
    ///   - debounce: Quiet time that ends a burst; 200 ms by default.
    ///   - maximumDelay: Upper bound on the wait during a burst that never pauses; 2 s by default.
    /// - Throws: `SystemCallError` when inotify is unavailable or a directory cannot be watched
    ///   (it does not exist, or the inotify watch limit is reached).
    package init(
        paths: [String], loop: ThreadExecutor, debounce: Duration = .milliseconds(200),
        maximumDelay: Duration = .seconds(2)
    ) throws {
        self.paths = paths
        self.loop = loop
        self.debounce = debounce
        self.maximumDelay = max(maximumDelay, debounce)
        files = try FileWatcher()
        var set = RuleWatchSet()
        set.planned = RuleWatchSet.plan(paths)
        for directory in set.unwatched {
            let watch = try files.addWatch(directory, mask: RuleWatchSet.mask)
            set.watches[watch, default: []].insert(directory)
        }
        watchSet = Mutex(set)
    }

    /// Reports every (coalesced) change to `changes` until the task is cancelled.
    ///
    /// Does not finish `changes`; its owner does. A stream made with `.bufferingNewest(1)` fits:
    /// two reports the daemon has not consumed yet mean the same as one.
    /// - Parameter changes: Where the reports go.
    /// - Throws: `SystemCallError` when reading the inotify descriptor fails, or when `run` was
    ///   already called on this watcher.
    package func run(reporting changes: AsyncStream<Void>.Continuation) async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            throw SystemCallError(call: "RuleFileWatcher.run", errno: .badFileDescriptor)
        }
        defer { files.close() }
        let clock = ContinuousClock()
        var burstStart: ContinuousClock.Instant?
        var deadline: ContinuousClock.Instant?
        while true {
            let outcome: WaitOutcome
            do {
                outcome = try await files.withDescriptor { fd in
                    try await Readiness.wait(on: loop, for: fd, deadline: deadline)
                }
            } catch is CancellationError {
                return
            }
            if outcome == .ready, isRelevant(try files.readEvents()) {
                // A directory recreated or a symlink retargeted: watch what the paths mean now.
                await BlockingPool.shared.run { self.refreshWatches() }
                let now = clock.now
                let start = burstStart ?? now
                burstStart = start
                deadline = min(now + debounce, start + maximumDelay)
            }
            if let due = deadline, clock.now >= due {
                changes.yield(())
                burstStart = nil
                deadline = nil
            }
        }
    }

    /// Whether some of `events` matter; forgets the watches the kernel ended.
    private func isRelevant(_ events: [InotifyEvent]) -> Bool {
        watchSet.withLock { set in
            var relevant = false
            for event in events {
                if set.isRelevant(event) { relevant = true }
                set.forget(event)
            }
            return relevant
        }
    }

    private func refreshWatches() {
        let planned = RuleWatchSet.plan(paths)
        watchSet.withLock { set in
            set.planned = planned
            for directory in set.unwatched {
                // A directory that is gone stays unwatched until an event in another watch brings it back.
                // A directory that is gone (ENOENT), or one past the inotify watch limit (ENOSPC),
                // stays in the unwatched set and is tried again on the next event of another watch; at start the same
                // failure is thrown (init).
                guard let watch = try? files.addWatch(directory, mask: RuleWatchSet.mask) else { continue }
                set.watches[watch, default: []].insert(directory)
            }
        }
    }
}
