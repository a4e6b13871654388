@preconcurrency import Glibc
import Synchronization

/// A continuous clock whose sleeps cost no wake-ups while they wait.
///
/// On Linux, every pending `Task.sleep` / `ContinuousClock.sleep` keeps a libdispatch timer
/// that is re-armed about once a second, however far away its deadline is (measured here: a
/// process whose only work is one day-long sleep wakes once a second). A daemon that waits
/// minutes between probes must not wake at all in between, so this clock parks its sleepers on
/// one dedicated thread that blocks in `pthread_cond_timedwait` until the earliest deadline.
///
/// In the daemon, whose tasks prefer its `ThreadExecutor` (`TaskPlacement`), a sleep is a timer
/// of that loop instead (``ThreadExecutor/at(_:_:)``): its `poll` waits until the earliest one,
/// and no timer thread is started.
///
/// `now` is `ContinuousClock`'s, so instants mix freely with it. Thread-safe; without the
/// daemon's loop, one timer thread per process, started on first use.
package struct QuietClock: Clock {
    package typealias Instant = ContinuousClock.Instant
    package typealias Duration = Swift.Duration

    package init() {}

    package var now: Instant { ContinuousClock.now }

    package var minimumResolution: Duration { .microseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if deadline <= now { return }
        if let loop = TaskPlacement.preferred as? ThreadExecutor {
            try await LoopSleep(loop).sleep(until: deadline)
            return
        }
        let timer = SleepTimer.shared
        let id = timer.nextID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                timer.add(id: id, deadline: deadline, continuation: continuation)
            }
        } onCancel: {
            timer.cancel(id: id)
        }
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

/// The timer thread behind `QuietClock` outside the daemon's loop.
///
/// `@unchecked Sendable`: `sleepers` and the pthread mutex/condition are only touched with
/// `mutex` held; the mutex and condition are allocated once and never freed (the timer lives as
/// long as the process).
final class SleepTimer: @unchecked Sendable {
    static let shared = SleepTimer()

    private struct Sleeper {
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var sleepers: [UInt64: Sleeper] = [:]
    /// Ids cancelled before their `add` ran (cancellation can race the continuation's creation).
    private var cancelledEarly: Set<UInt64> = []
    private let ids = Atomic<UInt64>(0)

    private init() {
        pthread_mutex_init(mutex, nil)
        let attributes = UnsafeMutablePointer<pthread_condattr_t>.allocate(capacity: 1)
        pthread_condattr_init(attributes)
        // Waits are computed on CLOCK_MONOTONIC so a change of the wall clock cannot stretch them.
        pthread_condattr_setclock(attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, attributes)
        pthread_condattr_destroy(attributes)
        attributes.deallocate()
        DedicatedThread.start(name: "netrules-clock") { [self] in run() }
    }

    func nextID() -> UInt64 {
        ids.add(1, ordering: .relaxed).newValue
    }

    func add(id: UInt64, deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Void, any Error>) {
        pthread_mutex_lock(mutex)
        if cancelledEarly.remove(id) != nil {
            pthread_mutex_unlock(mutex)
            continuation.resume(throwing: CancellationError())
            return
        }
        sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    func cancel(id: UInt64) {
        pthread_mutex_lock(mutex)
        let sleeper = sleepers.removeValue(forKey: id)
        if sleeper == nil { cancelledEarly.insert(id) }
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        sleeper?.continuation.resume(throwing: CancellationError())
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            let now = ContinuousClock.now
            let due = sleepers.filter { $0.value.deadline <= now }
            if !due.isEmpty {
                for id in due.keys { sleepers[id] = nil }
                pthread_mutex_unlock(mutex)
                for sleeper in due.values { sleeper.continuation.resume() }
                pthread_mutex_lock(mutex)
                continue
            }
            guard let next = sleepers.values.map(\.deadline).min() else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            var wake = timespec()
            clock_gettime(CLOCK_MONOTONIC, &wake)
            let (seconds, attoseconds) = (next - now).components
            var nanoseconds = Int(wake.tv_nsec) + Int(attoseconds / 1_000_000_000)
            wake.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
            nanoseconds %= 1_000_000_000
            wake.tv_nsec = nanoseconds
            _ = pthread_cond_timedwait(condition, mutex, &wake)
        }
    }
}
