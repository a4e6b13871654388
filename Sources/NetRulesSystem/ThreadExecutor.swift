@preconcurrency import Glibc

/// A task executor that runs every job on one OS thread, which sleeps on a condition variable
/// while there is nothing to run.
///
/// Why it exists: on Linux, the first job that reaches Swift's global concurrent executor starts
/// libdispatch's worker pool, whose manager thread then re-arms a 1 s timer for as long as the
/// process lives (design note 0009). A daemon whose tasks all prefer this executor
/// (`Task(executorPreference:)`, see `TaskPlacement`) never starts that pool, and so wakes up only
/// when something happens. Structured child tasks and default actors follow a task's preference;
/// unstructured tasks do not, so each one on the daemon's path names `TaskPlacement.preferred`.
///
/// The thread that calls ``run()`` runs the jobs, in the order they were enqueued, until
/// ``stop()``. No job may block that thread: blocking work goes to `DedicatedThread`.
///
/// `@unchecked Sendable`: `jobs`, `isWaiting` and `isStopping` are only touched with `mutex`
/// held; the mutex and condition are allocated once and freed in `deinit`, after the last
/// reference (and so the last `enqueue`) is gone.
package final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [UnownedJob] = []
    /// Whether ``run()`` sleeps on the condition, so `enqueue` signals only when someone waits.
    private var isWaiting = false
    private var isStopping = false

    /// Creates an executor; jobs run once some thread calls ``run()``.
    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Starts a thread of its own (named `name`, as `ps -L` shows it) that runs the executor's jobs.
    ///
    /// The thread holds the executor and runs until ``stop()``.
    /// - Parameter name: The thread's name (the kernel keeps 15 bytes).
    /// - Returns: The executor.
    /// - Throws: `SystemCallError` from `pthread_create`.
    package static func spawn(name: String) throws(SystemCallError) -> ThreadExecutor {
        let executor = ThreadExecutor()
        try DedicatedThread.spawn(name: name) { executor.run() }
        return executor
    }

    /// Queues `job`; it runs on the executor's thread after the jobs already queued.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        let wake = isWaiting
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
    }

    /// Runs jobs on the calling thread until ``stop()``, sleeping while there are none.
    ///
    /// Returns once `stop()` was called and no job is left. Call it from one thread at a time.
    package func run() {
        var batch: [UnownedJob] = []
        pthread_mutex_lock(mutex)
        while true {
            while jobs.isEmpty && !isStopping {
                isWaiting = true
                pthread_cond_wait(condition, mutex)
                isWaiting = false
            }
            if jobs.isEmpty { break }
            swap(&batch, &jobs)
            pthread_mutex_unlock(mutex)
            let executor = asUnownedTaskExecutor()
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
            pthread_mutex_lock(mutex)
        }
        isStopping = false
        pthread_mutex_unlock(mutex)
    }

    /// Makes ``run()`` return once the queued jobs have run. Safe from any thread, including a job.
    package func stop() {
        pthread_mutex_lock(mutex)
        isStopping = true
        let wake = isWaiting
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
    }
}
