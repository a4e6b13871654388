import Synchronization

extension DedicatedThread {
    /// Runs blocking `body` on a thread of its own and returns its result, or nil when it has not
    /// returned within `limit` or the calling task is cancelled first.
    ///
    /// A thread cannot be stopped from outside: after a timeout `body` keeps running (blocked in a
    /// system call, typically) and its result is dropped. Callers make such blocking rare
    /// (`O_NONBLOCK`), this bounds the wait for the rest.
    ///
    /// - Parameters:
    ///   - limit: How long to wait.
    ///   - loop: The event loop whose timer the limit is.
    ///   - body: The blocking work.
    /// - Returns: What `body` returned, or nil after `limit`.
    package static func run<T: Sendable>(
        within limit: Duration, on loop: ThreadExecutor, _ body: @escaping @Sendable () -> T
    ) async -> T? {
        let gate = ResumeOnce<T?>()
        let timer = Task(executorPreference: loop) {
            do {
                // QuietClock, not Task.sleep: a libdispatch timer would keep waking the process.
                try await QuietClock(loop: loop).sleep(for: limit)
                gate.resume(nil)
            } catch {
                // Cancelled: the work finished first.
            }
        }
        let result = await withTaskCancellationHandler {
            await gate.wait { start { gate.resume(body()) } }
        } onCancel: {
            gate.resume(nil)
        }
        timer.cancel()
        return result
    }
}

/// Runs `work` in a task of its own and returns its result, or nil when it has not finished within
/// `limit`: unlike a task group, the caller does not wait for work that ignores cancellation.
/// The work is cancelled when the limit passes (it may still run to its end, unobserved). Both
/// tasks run on `loop`.
package func withTimeLimit<T: Sendable>(
    _ limit: Duration, on loop: ThreadExecutor, _ work: @escaping @Sendable () async -> T
) async -> T? {
    let gate = ResumeOnce<T?>()
    let worker = Task(executorPreference: loop) { gate.resume(await work()) }
    let timer = Task(executorPreference: loop) {
        do {
            try await QuietClock(loop: loop).sleep(for: limit)
            gate.resume(nil)
        } catch {}
    }
    let result = await gate.wait {}
    timer.cancel()
    if result == nil { worker.cancel() }
    return result
}

/// A continuation that the first of several racers resumes; later resumes are ignored.
private final class ResumeOnce<T: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<T, Never>)
        case done(T)
        case finished
    }

    private let state = Mutex<State>(.idle)

    func wait(starting begin: () -> Void) async -> T {
        await withCheckedContinuation { continuation in
            let early: T? = state.withLock { state in
                if case .done(let value) = state {
                    state = .finished
                    return value
                }
                state = .waiting(continuation)
                return nil
            }
            if let early {
                continuation.resume(returning: early)
                return
            }
            begin()
        }
    }

    func resume(_ value: T) {
        let continuation: CheckedContinuation<T, Never>? = state.withLock { state in
            switch state {
            case .idle:
                state = .done(value)
                return nil
            case .waiting(let continuation):
                state = .finished
                return continuation
            case .done, .finished:
                return nil
            }
        }
        continuation?.resume(returning: value)
    }
}
