import Synchronization

/// A continuous clock whose sleeps are timers of an event loop: they cost no wake-ups while they
/// wait.
///
/// On Linux, every pending `Task.sleep` / `ContinuousClock.sleep` keeps a libdispatch timer
/// that is re-armed about once a second, however far away its deadline is (measured here: a
/// process whose only work is one day-long sleep wakes once a second). A daemon that waits
/// minutes between probes must not wake at all in between, so a sleep here is a deadline of the
/// loop it was given (``ThreadExecutor/at(_:_:)``): its `poll` waits until the earliest one, and
/// no timer thread exists.
///
/// `now` is `ContinuousClock`'s, so instants mix freely with it.
package struct QuietClock: Clock {
    package typealias Instant = ContinuousClock.Instant
    package typealias Duration = Swift.Duration

    /// The loop whose timers the sleeps are.
    package let loop: ThreadExecutor

    package init(loop: ThreadExecutor) { self.loop = loop }

    package var now: Instant { ContinuousClock.now }

    package var minimumResolution: Duration { .microseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if deadline <= now { return }
        try await LoopSleep(loop).sleep(until: deadline)
    }
}

/// One sleep on the daemon's loop: a timer that resumes the sleeper, cancelled with its task.
///
/// Cancellation may come before the continuation exists (`cancelled`), while the timer is
/// pending, or after it fired; whichever comes first resumes the sleeper, once.
private final class LoopSleep: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var timer: LoopTimer?
        var cancelled = false
    }

    private let loop: ThreadExecutor
    private let state = Mutex(State())

    init(_ loop: ThreadExecutor) { self.loop = loop }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let refused = state.withLock { state -> Bool in
                    guard !state.cancelled else { return true }
                    state.continuation = continuation
                    state.timer = loop.at(deadline) { [self] in
                        self.state.withLock { $0.continuation.take() }?.resume()
                    }
                    return false
                }
                if refused { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                state.cancelled = true
                if let timer = state.timer { loop.cancel(timer) }
                return state.continuation.take()
            }
            waiting?.resume(throwing: CancellationError())
        }
    }
}
