import NetRulesSystem

/// Runs blocking work (curl transfers, `getaddrinfo`, `poll`) off Swift's cooperative pool.
///
/// The cooperative pool has one thread per core (the daemon's tasks share one thread, see
/// `ThreadExecutor`); a blocking call parked there stalls every task. Each job gets a thread of its
/// own instead. Not a Dispatch queue: its first job would start libdispatch's worker pool, whose
/// timer then wakes the daemon every second for good (design note 0009). The executor is also the seam the
/// namespace tests use: they substitute one that runs each job on a fresh thread that has
/// joined a test network namespace, so sockets and DNS lookups happen inside it.
package struct BlockingExecutor: Sendable {
    private let start: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Creates an executor from a function that starts a job somewhere and returns at once.
    package init(start: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.start = start
    }

    /// The production executor: each job on a new detached thread (a transfer or `getaddrinfo`
    /// costs far more than the tens of microseconds of creating one). The default stack, not the
    /// compact one: TLS handshakes and NSS modules run here. Should no thread be available, the
    /// job waits for one of `BlockingPool.shared`'s, never the caller's (the daemon's loop).
    package static let dedicatedThreads = BlockingExecutor { job in
        do {
            try DedicatedThread.spawn(name: "netrules-block", job)
        } catch {
            BlockingPool.shared.spawn(job)
        }
    }

    /// Starts `job` and returns at once.
    package func spawn(_ job: @escaping @Sendable () -> Void) {
        start(job)
    }

    /// Runs `body` on the executor and waits for its result (not cancellable: `body` decides when to stop).
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: body()) }
        }
    }
}
