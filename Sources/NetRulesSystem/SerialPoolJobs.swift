import Synchronization

/// Jobs run on `BlockingPool.shared` one at a time, in the order they were submitted: one owner's
/// writes to its files (the history, `state.json`) never overlap and never change order, and the
/// caller (the daemon's loop) never waits for them.
///
/// At most one pool job drains the queue at a time, so the jobs hold at most one of the pool's
/// threads. Safe from any thread.
package final class SerialPoolJobs: Sendable {
    private struct State {
        var queue: [@Sendable () -> Void] = []
        /// A pool job is queued or draining.
        var running = false
        /// Who waits until everything submitted so far has run (`idle()`).
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Runs `job` on the pool after every job submitted before it.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.queue.append(job)
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if start { BlockingPool.shared.spawn { [self] in drain() } }
    }

    /// Waits until every job submitted so far has run (for shutdown and tests).
    package func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.running else { return true }
                state.waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// The pool job: runs what is queued, in order, until nothing is.
    private func drain() {
        while true {
            let (jobs, waiters) = state.withLock {
                state -> ([@Sendable () -> Void], [CheckedContinuation<Void, Never>]) in
                guard state.queue.isEmpty else {
                    defer { state.queue = [] }
                    return (state.queue, [])
                }
                state.running = false
                defer { state.waiters = [] }
                return ([], state.waiters)
            }
            guard !jobs.isEmpty else {
                for waiter in waiters { waiter.resume() }
                return
            }
            for job in jobs { job() }
        }
    }
}
