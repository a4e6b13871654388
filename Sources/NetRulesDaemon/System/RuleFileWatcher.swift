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
/// No polling and no timers while nothing changes: a dedicated thread sleeps in `poll(2)` on the
/// inotify descriptor and an eventfd that cancellation signals; it wakes with a timeout only while
/// a burst is being coalesced.
///
/// The watches are in place when `init` returns, so a change made right after it is seen even if
/// `run` starts later. One `run` per watcher; its descriptors are closed when `run` returns.
public final class RuleFileWatcher: Sendable {
    /// How long after the last event of a burst the change is reported.
    public let debounce: Duration
    /// The longest a change waits while events keep coming.
    public let maximumDelay: Duration

    private let paths: [String]
    private let inotify: FileDescriptor
    private let wake: WakeEvent
    private let watchSet: Mutex<RuleWatchSet>
    private let started = Atomic<Bool>(false)

    /// Watches `paths`, rule files and directories of rule files.
    ///
    /// - Parameters:
    ///   - paths: Rule files (which need not exist yet, as long as their directory does) and rule directories.
    ///   - debounce: Quiet time that ends a burst; 200 ms by default.
    ///   - maximumDelay: Upper bound on the wait during a burst that never pauses; 2 s by default.
    /// - Throws: `SystemCallError` when inotify is unavailable or a directory cannot be watched
    ///   (it does not exist, or the inotify watch limit is reached).
    public init(
        paths: [String], debounce: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(2)
    ) throws {
        self.paths = paths
        self.debounce = debounce
        self.maximumDelay = max(maximumDelay, debounce)
        inotify = FileDescriptor(
            taking: try sys_inotify_init1(CInt(IN_CLOEXEC | IN_NONBLOCK)).get(call: "inotify_init1"))
        wake = try WakeEvent()
        var set = RuleWatchSet()
        set.planned = RuleWatchSet.plan(paths)
        for directory in set.unwatched {
            let watch = try inotify.withFileDescriptor { fd in
                try sys_inotify_add_watch(fd, directory, RuleWatchSet.mask).get(call: "inotify_add_watch")
            }
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
    public func run(reporting changes: AsyncStream<Void>.Continuation) async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            throw SystemCallError(call: "RuleFileWatcher.run", errno: .badFileDescriptor)
        }
        defer {
            try? inotify.close()
            wake.close()
        }
        try await withTaskCancellationHandler {
            try await DedicatedThread.spawnAndWait(
                name: "netrules-rules", stackSize: DedicatedThread.compactStackSize
            ) { [self] in
                try watch(changes)
            }
        } onCancel: {
            wake.signal()
        }
    }

    private func watch(_ changes: AsyncStream<Void>.Continuation) throws {
        let clock = ContinuousClock()
        var burstStart: ContinuousClock.Instant?
        var deadline: ContinuousClock.Instant?
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let inotifyFD = try inotify.withFileDescriptor { $0 }
        let wakeFD = try wake.descriptor.withFileDescriptor { $0 }
        while true {
            var timeout: CInt = -1
            if let deadline {
                let remaining = max(.zero, deadline - clock.now)
                // Rounded up, so the poll never returns just before the deadline and spins.
                let (seconds, attoseconds) = remaining.components
                timeout = CInt(
                    min(Int64(Int32.max), seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
                )
            }
            var fds = [
                pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            _ = try sys_poll(&fds, fds.count, timeout).get(call: "poll")
            if fds[1].revents != 0 { return }
            if fds[0].revents != 0, try readEvents(into: &buffer) {
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

    /// Drains the inotify queue; true when some event was relevant. Re-adds watches for planned
    /// directories that lost theirs or appeared (a rule directory recreated, a symlink retargeted).
    private func readEvents(into buffer: inout [UInt8]) throws -> Bool {
        var relevant = false
        while true {
            let result = try inotify.withFileDescriptor { fd in
                buffer.withUnsafeMutableBytes { sys_read(fd, $0) }
            }
            guard case .success(let count) = result, count > 0 else {
                if case .failure(let errno) = result, errno != .wouldBlock {
                    throw SystemCallError(call: "read", errno: errno)
                }
                break
            }
            let events = buffer.withUnsafeBytes { InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            watchSet.withLock { set in
                for event in events {
                    if set.isRelevant(event) { relevant = true }
                    set.forget(event)
                }
            }
        }
        if relevant { refreshWatches() }
        return relevant
    }

    private func refreshWatches() {
        let planned = RuleWatchSet.plan(paths)
        watchSet.withLock { set in
            set.planned = planned
            for directory in set.unwatched {
                // A directory that is gone stays unwatched until an event in another watch brings it back.
                guard
                    let watch = try? inotify.withFileDescriptor({ fd in
                        try sys_inotify_add_watch(fd, directory, RuleWatchSet.mask).get(call: "inotify_add_watch")
                    })
                else { continue }
                set.watches[watch, default: []].insert(directory)
            }
        }
    }
}
