@preconcurrency import Glibc

/// A bounded set of threads for short blocking work: file reads, fsync(2), PATH searches, `cwd:`
/// checks — anything that must not run on the daemon's loop thread (STYLE §16, NIO's `NIOThreadPool`).
///
/// Jobs run in the order they were queued, on at most `limit` threads. The first thread, once
/// made, stays (parked in `pthread_cond_wait`, it costs no wake-ups); the others end after
/// `lingering` without work, so a burst leaves no threads behind, or stay too when `lingering` is
/// nil (a pool whose threads must live as long as the process: `ChildProcess.spawner`). Long work (an action's child
/// process, a curl transfer) has threads of its own (`DedicatedThread`): here it would hold up the
/// short jobs queued behind it.
///
/// Not a Dispatch queue: its first job would start libdispatch's worker pool, whose timer then
/// wakes the daemon every second for good (design note 0009).
package final class BlockingPool: @unchecked Sendable {
    // Invariant for `@unchecked Sendable`: `queue`, `threads`, `idle` and `head` are read and
    // written only with `mutex` held.

    /// The daemon's pool: two threads (this machine class has two cores, and the jobs are short).
    package static let shared = BlockingPool(name: "netrules-pool", limit: 2)

    private let name: String
    private let limit: Int
    private let lingering: Duration?
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var threads = 0
    private var idle = 0

    /// - Parameters:
    ///   - name: The threads' name, as `ps -L` shows it.
    ///   - limit: The most threads it runs at once (at least 1).
    ///   - lingering: How long a thread beyond the first waits for work before it ends; nil: it
    ///     never ends.
    package init(name: String, limit: Int, lingering: Duration? = .seconds(10)) {
        self.name = name
        self.limit = max(1, limit)
        self.lingering = lingering
        pthread_mutex_init(mutex, nil)
        let attributes = UnsafeMutablePointer<pthread_condattr_t>.allocate(capacity: 1)
        pthread_condattr_init(attributes)
        pthread_condattr_setclock(attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, attributes)
        pthread_condattr_destroy(attributes)
        attributes.deallocate()
    }

    /// Makes the first thread now, so later jobs always have one even when no more threads can be
    /// created (the daemon calls it at start, where failing is still a clear error).
    /// - Throws: `SystemCallError` from `pthread_create`.
    package func prepare() throws(SystemCallError) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard threads == 0 else { return }
        try addThread()
    }

    /// How many threads the pool runs now (for `status` and the idle figures).
    package var threadCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return threads
    }

    /// Queues `job` and returns at once.
    ///
    /// A job is never run on the caller's thread: when no thread can be added it waits for one of
    /// the pool's threads; only a pool that has none at all (`prepare()` was not called and
    /// `pthread_create` fails) runs it on a dedicated thread's fallback path, which is the caller's.
    package func spawn(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        queue.append(job)
        if idle > 0 { pthread_cond_signal(condition) }
        // A thread more while the jobs waiting outnumber the threads free to take them.
        if queue.count - head > idle, threads < limit {
            do {
                try addThread()
            } catch  where threads == 0 {
                // Nothing will ever run the queue: the job runs here rather than never.
                queue.removeLast()
                pthread_mutex_unlock(mutex)
                job()
                return
            } catch {
                // The threads there are will get to it.
            }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` on the pool and waits for its result (not cancellable: `body` decides when to stop).
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            spawn { continuation.resume(returning: body()) }
        }
    }

    /// Called with `mutex` held. A new thread counts as free from the start: it looks at the
    /// queue before it first waits.
    private func addThread() throws(SystemCallError) {
        let permanent = threads == 0 || lingering == nil
        try DedicatedThread.spawn(name: name, stackSize: DedicatedThread.compactStackSize) { [self] in
            work(permanent: permanent)
        }
        threads += 1
        idle += 1
    }

    /// A thread's life: take jobs in order; wait for more; a thread beyond the first ends after
    /// `lingering` without any (never when `lingering` is nil).
    private func work(permanent: Bool) {
        pthread_mutex_lock(mutex)
        while true {
            if head < queue.count {
                let job = queue[head]
                head += 1
                if head == queue.count {
                    queue.removeAll(keepingCapacity: queue.count <= 64)
                    head = 0
                }
                idle -= 1
                pthread_mutex_unlock(mutex)
                job()
                pthread_mutex_lock(mutex)
                idle += 1
                continue
            }
            guard !permanent, let lingering else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let (seconds, attoseconds) = lingering.components
            deadline.tv_sec += Int(seconds)
            deadline.tv_nsec += Int(attoseconds / 1_000_000_000)
            if deadline.tv_nsec >= 1_000_000_000 {
                deadline.tv_sec += 1
                deadline.tv_nsec -= 1_000_000_000
            }
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT, head >= queue.count {
                idle -= 1
                threads -= 1
                pthread_mutex_unlock(mutex)
                return
            }
        }
    }
}
