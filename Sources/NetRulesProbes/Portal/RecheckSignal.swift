import Synchronization

/// A level-triggered "probe now" flag that one waiter can await.
///
/// A `recheck()` that arrives while the observer is probing is kept, not lost: the next wait
/// returns at once. Several rechecks before a wait count as one.
final class RecheckSignal: Sendable {
    private let state = Mutex<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter.take() else {
                state.pending = true
                return nil
            }
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when signalled (or at once if a signal is pending), or when the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    // The cancellation handler may have run already, before there was a waiter to
                    // resume (it runs at once in a task cancelled before the wait began): a waiter
                    // stored now would never be resumed. The flag is set before the handler runs and
                    // the handler takes this lock, so one of the two always sees the other.
                    if Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiter.take() }?.resume()
        }
    }
}
