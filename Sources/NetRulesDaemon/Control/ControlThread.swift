@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

/// Waits for a descriptor on a dedicated OS thread, so a client that is slow or silent never parks a
/// thread of Swift's cooperative pool (STYLE §16).
///
/// Every wait is a `poll(2)` on the descriptor and a `WakeEvent`; cancelling the waiting task
/// signals the event, so the thread returns at once and the wait throws `CancellationError`.
enum ControlThread {
    /// Waits until `fd` is ready for `events`, the timeout passes, or the task is cancelled.
    /// - Parameters:
    ///   - fd: the descriptor; its owner must keep it open until this returns.
    ///   - events: `POLLIN`, `POLLOUT`…
    ///   - timeout: nil waits without limit.
    /// - Returns: `.ready` or `.timedOut`.
    /// - Throws: `CancellationError` when the task was cancelled, or a `SystemCallError`.
    static func wait(for fd: CInt, events: Int16, timeout: Duration?) async throws -> WaitOutcome {
        try Task.checkCancellation()
        let wake = try WakeEvent()
        defer { wake.close() }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let outcome = try await withTaskCancellationHandler {
            try await DedicatedThread.spawnAndWait(name: "netrules-control") {
                try waitReadable(fd, events: events, wake: wake, deadline: deadline)
            }
        } onCancel: {
            wake.signal()
        }
        if outcome == .woken { throw CancellationError() }
        return outcome
    }
}
