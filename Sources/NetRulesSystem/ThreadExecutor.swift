@preconcurrency import Glibc
import Synchronization

/// A task executor that runs every job on one OS thread, and between jobs waits in `poll(2)` for
/// the descriptors it was asked to watch: the daemon's event loop.
///
/// Why it exists: on Linux, the first job that reaches Swift's global concurrent executor starts
/// libdispatch's worker pool, whose manager thread then re-arms a 1 s timer for as long as the
/// process lives (design note 0009). A daemon whose tasks all prefer this executor
/// (`Task(executorPreference:)`) never starts that pool, and so wakes up only when something
/// happens. Structured child tasks and default actors follow a task's preference; unstructured
/// tasks do not, so each one names the loop it runs on.
///
/// Why it is passed in: there is no global loop. The `netrules` executable makes one on its main
/// thread and hands it to the command line; every source (observer, probe, runner, link, control
/// socket) takes it as a parameter and starts its tasks, timers (`QuietClock`) and waits
/// (`Readiness`) on it. Tests get one the same way (`ThreadExecutor.spawn`), so they run the
/// production path.
///
/// Why it keeps timers: a sleep on `QuietClock` while this loop runs the daemon is a deadline
/// here (``at(_:_:)``), and `poll`'s timeout is the earliest one, so waiting for a probe interval
/// costs one wake-up when it is due and no thread of its own.
///
/// Why it watches descriptors: an observer whose reader runs here (the netlink observer, see
/// ``watch(_:_:)``) reads a kernel event, and the daemon's tasks it wakes (the engine, the journal
/// line, the action's spawn) run right after on the same thread. A reader on a thread of its own
/// would have to wake this one and wait for a CPU to run it, which on a busy machine costs more than
/// all the work in between (design note 0004).
///
/// The thread that calls ``run()`` runs the jobs, in the order they were enqueued, until
/// ``stop()``. No job and no watch handler may block that thread: blocking work goes to
/// `DedicatedThread`.
///
/// `@unchecked Sendable`: `jobs`, `idleWork`, `watches`, `isWaiting`, `isStopping` and `runningWatch` are only
/// touched with `mutex` held; the mutex and condition are allocated once and freed in `deinit`,
/// after the last reference (and so the last `enqueue`) is gone.
package final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Signalled when a watch handler returns, for an `unwatch` from another thread.
    private let handlerReturned = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Ends the loop's `poll` when a job is enqueued or the watches change.
    private let wake: WakeEvent
    private var jobs: [UnownedJob] = []
    /// Work to do once no job is left (`whenIdle`), in the order it was asked for.
    private var idleWork: [@Sendable () -> Void] = []
    private var watches: [DescriptorWatch: Watched] = [:]
    private var nextWatch = 0
    /// Deadlines and what to do at each (``at(_:_:)``). Few at a time (one per sleeping task):
    /// the earliest is found by a scan before each wait.
    private var timers: [LoopTimer: Timer] = [:]
    private var nextTimer = 0
    /// The watch whose handler runs now, so `unwatch` can wait for it to return.
    private var runningWatch: DescriptorWatch?
    /// Whether ``run()`` waits in `poll`, so `enqueue` writes to the eventfd only when someone waits.
    private var isWaiting = false
    private var isStopping = false
    /// Whether the last poll failed: its failure is said once per streak. Loop thread only.
    private var pollFailing = false
    /// The kernel id of the thread in ``run()``, 0 before it started.
    private var loopThread: pid_t = 0
    /// Whether a blocking wrapper called from this loop's jobs traps (`LoopGuard.guardBlockingCalls(on:)`):
    /// the daemon's loop and the tests' loop, in debug builds.
    let guardsBlockingCalls = Atomic<Bool>(false)

    private struct Timer {
        var deadline: ContinuousClock.Instant
        var handler: @Sendable () -> Void
    }

    /// A descriptor to watch and what to do when it is readable.
    private struct Watched {
        var descriptor: CInt
        var events: Int16
        /// Called with the `revents` poll reported.
        var handler: @Sendable (Int16) -> Void
    }

    /// Creates an executor; jobs run once some thread calls ``run()``.
    /// - Throws: `SystemCallError` from eventfd(2).
    package init() throws(SystemCallError) {
        wake = try WakeEvent()
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(handlerReturned, nil)
    }

    deinit {
        pthread_cond_destroy(handlerReturned)
        pthread_mutex_destroy(mutex)
        handlerReturned.deallocate()
        mutex.deallocate()
        wake.close()
    }

    /// Starts a thread of its own (named `name`, as `ps -L` shows it) that runs the executor's jobs.
    ///
    /// The thread holds the executor and runs until ``stop()``.
    /// - Parameter name: The thread's name (the kernel keeps 15 bytes).
    /// - Returns: The executor.
    /// - Throws: `SystemCallError` from eventfd(2) or `pthread_create`.
    package static func spawn(name: String) throws(SystemCallError) -> ThreadExecutor {
        let executor = try ThreadExecutor()
        try DedicatedThread.spawn(name: name) { executor.run() }
        return executor
    }

    /// The kernel id of the executor's thread (for `/proc/self/task/TID/status`), 0 until it runs.
    package var threadID: pid_t {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return loopThread
    }

    /// Queues `job`; it runs on the executor's thread after the jobs already queued.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        let waiting = isWaiting
        isWaiting = false
        pthread_mutex_unlock(mutex)
        if waiting { wake.signal() }
    }

    /// Runs `work` on the executor's thread once no job is queued, before it waits again: for work
    /// that must not delay what the jobs queued now do (a route dump after the event that asked for
    /// it, while the actions that event triggered are still to start).
    /// - Parameter work: The work; it must not block.
    package func whenIdle(_ work: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        idleWork.append(work)
        let waiting = isWaiting
        isWaiting = false
        pthread_mutex_unlock(mutex)
        if waiting { wake.signal() }
    }

    /// Calls `handler` on the executor's thread each time `descriptor` is readable (or ready for
    /// `events`, or reports an error or hang-up), until ``unwatch(_:)``.
    ///
    /// The watch is level-triggered: the handler must read what is there (a non-blocking descriptor,
    /// read until `EAGAIN`) or stop watching, or it is called again at once. It must not block.
    /// The caller keeps `descriptor` open until `unwatch` returned.
    /// - Parameters:
    ///   - descriptor: The descriptor to watch.
    ///   - events: `POLLIN` (the default), `POLLOUT`…
    ///   - handler: What to do when it is readable; runs between jobs, never beside one.
    /// - Returns: The watch, for `unwatch`.
    package func watch(
        _ descriptor: CInt, events: Int16 = Int16(POLLIN), _ handler: @escaping @Sendable () -> Void
    ) -> DescriptorWatch {
        watch(descriptor, events: events, reporting: { _ in handler() })
    }

    /// ``watch(_:events:_:)``, its handler told which events `poll` reported (`revents`).
    package func watch(
        _ descriptor: CInt, events: Int16, reporting handler: @escaping @Sendable (Int16) -> Void
    ) -> DescriptorWatch {
        pthread_mutex_lock(mutex)
        let watch = DescriptorWatch(id: nextWatch)
        nextWatch += 1
        watches[watch] = Watched(descriptor: descriptor, events: events, handler: handler)
        let waiting = isWaiting
        isWaiting = false
        pthread_mutex_unlock(mutex)
        // A loop already in poll must look again, with this descriptor too.
        if waiting { wake.signal() }
        return watch
    }

    /// Stops calling the handler of `watch`. Once this returns, the handler is not running and never
    /// runs again (from the handler itself: it is not called again), so its descriptor may be closed.
    /// - Parameter watch: What ``watch(_:_:)`` returned; a watch already removed is ignored.
    package func unwatch(_ watch: DescriptorWatch) {
        pthread_mutex_lock(mutex)
        watches[watch] = nil
        if sys_gettid() != loopThread {
            while runningWatch == watch { pthread_cond_wait(handlerReturned, mutex) }
        }
        let waiting = isWaiting
        isWaiting = false
        pthread_mutex_unlock(mutex)
        // The loop's poll may still hold the descriptor's number: make it look again without it.
        if waiting { wake.signal() }
    }

    /// Calls `handler` on the executor's thread once `deadline` has passed, between jobs; it must
    /// not block.
    /// - Returns: The timer, for ``cancel(_:)``.
    package func at(_ deadline: ContinuousClock.Instant, _ handler: @escaping @Sendable () -> Void) -> LoopTimer {
        pthread_mutex_lock(mutex)
        let timer = LoopTimer(id: nextTimer)
        nextTimer += 1
        timers[timer] = Timer(deadline: deadline, handler: handler)
        let waiting = isWaiting
        isWaiting = false
        pthread_mutex_unlock(mutex)
        // A loop already in poll waits with the old timeout: make it look again.
        if waiting { wake.signal() }
        return timer
    }

    /// Cancels `timer`.
    /// - Returns: Whether it was still pending: then its handler never runs; otherwise it has run
    ///   or is about to.
    @discardableResult
    package func cancel(_ timer: LoopTimer) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        // A later deadline only: the loop's timeout may stay as it was (it finds nothing due then).
        return timers.removeValue(forKey: timer) != nil
    }

    /// Runs jobs on the calling thread until ``stop()``, and between them waits for a job, a
    /// watched descriptor or the earliest timer: an idle loop without timers never wakes up.
    ///
    /// Returns once `stop()` was called and no job is left. Call it from one thread at a time.
    package func run() {
        var batch: [UnownedJob] = []
        var descriptors: [pollfd] = []
        var ready: [(DescriptorWatch, Int16)] = []
        pthread_mutex_lock(mutex)
        loopThread = sys_gettid()
        LoopGuard.setRunningLoop(guardsBlockingCalls.load(ordering: .relaxed))
        defer { LoopGuard.setRunningLoop(false) }
        while true {
            // Each pass runs what is due (a batch of jobs, else the idle work; then the timers that
            // are due) and then always polls, without waiting while work remains: a job or timer
            // that re-arms itself at once cannot keep the loop from its descriptors (a signal, a
            // client, a child's exit), as NIO's loop runs its tasks and selects in turn.
            var ranWork = false
            if !jobs.isEmpty {
                swap(&batch, &jobs)
                pthread_mutex_unlock(mutex)
                let executor = asUnownedTaskExecutor()
                if let budget = LoopBudget.configured {
                    for job in batch {
                        let start = budget.start()
                        let priority = job.priority
                        job.runSynchronously(on: executor)
                        budget.end(start, "a task's job (priority \(priority.rawValue))")
                    }
                } else {
                    for job in batch { job.runSynchronously(on: executor) }
                }
                batch.removeAll(keepingCapacity: true)
                pthread_mutex_lock(mutex)
                ranWork = true
            } else if !idleWork.isEmpty {
                let work = idleWork
                idleWork = []
                pthread_mutex_unlock(mutex)
                for item in work {
                    let start = LoopBudget.configured?.start()
                    item()
                    if let start { LoopBudget.configured?.end(start, "an idle work item") }
                }
                pthread_mutex_lock(mutex)
                ranWork = true
            }
            if !timers.isEmpty {
                let now = ContinuousClock.now
                let due = timers.filter { $0.value.deadline <= now }
                if !due.isEmpty {
                    for timer in due.keys { timers[timer] = nil }
                    pthread_mutex_unlock(mutex)
                    for timer in due.values.sorted(by: { $0.deadline < $1.deadline }) {
                        let start = LoopBudget.configured?.start()
                        timer.handler()
                        if let start { LoopBudget.configured?.end(start, "a timer's handler") }
                    }
                    pthread_mutex_lock(mutex)
                    ranWork = true
                }
            }
            if !ranWork && isStopping { break }
            // Work left (or just done, which may have queued more): look at the descriptors
            // without waiting, then run it.
            let busy = ranWork || !jobs.isEmpty || !idleWork.isEmpty
            let deadline = busy ? ContinuousClock.now : timers.values.map(\.deadline).min()
            let watched = watches.map { ($0.key, $0.value.descriptor, $0.value.events) }
            // Only a poll that may wait needs the wake event written to end it.
            isWaiting = !busy
            pthread_mutex_unlock(mutex)

            descriptors.removeAll(keepingCapacity: true)
            for (_, descriptor, events) in watched {
                descriptors.append(pollfd(fd: descriptor, events: events, revents: 0))
            }
            let outcome: WaitOutcome
            // The loop's own wait is the one poll allowed to block here (`LoopGuard`).
            LoopGuard.setRunningLoop(false)
            do {
                outcome = try waitReady(&descriptors, wake: wake, deadline: deadline)
                pollFailing = false
            } catch {
                // poll(2) itself failed (ENOMEM, or EINVAL past RLIMIT_NOFILE): nothing can be read
                // now. Say so once per streak, on stderr (the journal), and pause before trying
                // again, so a failure that persists costs ten wake-ups a second, not a core.
                if !pollFailing {
                    pollFailing = true
                    let line = Array(
                        "netrules: the event loop cannot wait on its descriptors: \(error); retrying\n".utf8)
                    _ = line.withUnsafeBytes { sys_write(2, $0) }
                }
                sys_sleep(milliseconds: 100)
                outcome = .woken
            }
            LoopGuard.setRunningLoop(guardsBlockingCalls.load(ordering: .relaxed))
            if outcome == .woken { wake.reset() }
            ready.removeAll(keepingCapacity: true)
            for (entry, (watch, _, _)) in zip(descriptors, watched) where entry.revents != 0 {
                ready.append((watch, entry.revents))
            }

            pthread_mutex_lock(mutex)
            isWaiting = false
            for (watch, revents) in ready {
                // Removed while the loop waited: its descriptor may be closed, or another by now.
                guard let entry = watches[watch] else { continue }
                let handler = entry.handler
                runningWatch = watch
                pthread_mutex_unlock(mutex)
                let start = LoopBudget.configured?.start()
                handler(revents)
                if let start { LoopBudget.configured?.end(start, "the handler of descriptor \(entry.descriptor)") }
                pthread_mutex_lock(mutex)
                runningWatch = nil
                pthread_cond_broadcast(handlerReturned)
            }
        }
        isStopping = false
        loopThread = 0
        pthread_mutex_unlock(mutex)
    }

    /// Makes ``run()`` return once the queued jobs have run. Safe from any thread, including a job.
    package func stop() {
        pthread_mutex_lock(mutex)
        isStopping = true
        let waiting = isWaiting
        isWaiting = false
        pthread_mutex_unlock(mutex)
        if waiting { wake.signal() }
    }
}

/// A deadline a `ThreadExecutor` keeps, returned by `at` and ended by `cancel`.
package struct LoopTimer: Hashable, Sendable {
    fileprivate let id: Int
}

/// A descriptor a `ThreadExecutor` watches, returned by `watch` and ended by `unwatch`.
package struct DescriptorWatch: Hashable, Sendable {
    fileprivate let id: Int
}
