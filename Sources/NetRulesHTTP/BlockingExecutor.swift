import Dispatch

/// Runs blocking work (curl transfers, `getaddrinfo`, `poll`) off Swift's cooperative pool.
///
/// The cooperative pool has one thread per core; a blocking call parked there stalls every
/// task. Work goes to a concurrent Dispatch queue instead. The executor is also the seam the
/// namespace tests use: they substitute one that runs each job on a fresh thread that has
/// joined a test network namespace, so sockets and DNS lookups happen inside it.
package struct BlockingExecutor: Sendable {
    private let start: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Creates an executor from a function that starts a job somewhere and returns at once.
    package init(start: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.start = start
    }

    private static let queue = DispatchQueue(label: "netrules.blocking", attributes: .concurrent)

    /// The production executor: a concurrent Dispatch queue.
    package static let dispatch = BlockingExecutor { job in queue.async(execute: job) }

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
