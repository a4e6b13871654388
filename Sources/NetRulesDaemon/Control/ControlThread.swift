@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

/// Waits for a descriptor on a dedicated OS thread, so a client that is slow or silent never parks a
/// thread of Swift's cooperative pool (STYLE §16).
///
/// Every wait is a `poll(2)` on the descriptor and a `WakeEvent`; cancelling the waiting task
/// signals the event, so the thread returns at once and the wait throws `CancellationError`.
enum ControlThread {
    /// How a wait ended.
    enum Outcome: Equatable {
        /// The descriptor has one of the requested events (or an error or hang-up to report).
        case ready
        /// The timeout passed first.
        case timedOut
        /// The wake event was signalled.
        case woken
    }

    /// Waits until `fd` is ready for `events`, the timeout passes, or the task is cancelled.
    /// - Parameters:
    ///   - fd: the descriptor; its owner must keep it open until this returns.
    ///   - events: `POLLIN`, `POLLOUT`…
    ///   - timeout: nil waits without limit.
    /// - Returns: `.ready` or `.timedOut`.
    /// - Throws: `CancellationError` when the task was cancelled, or a `SystemCallError`.
    static func wait(for fd: CInt, events: Int16, timeout: Duration?) async throws -> Outcome {
        try Task.checkCancellation()
        let wake = try WakeEvent()
        let outcome = try await withTaskCancellationHandler {
            try await DedicatedThread.spawnAndWait(name: "netrules-control") {
                try poll(fd, events: events, wake: wake, timeout: timeout)
            }
        } onCancel: {
            wake.signal()
        }
        if outcome == .woken { throw CancellationError() }
        return outcome
    }

    /// Polls `fd` and `wake` on the calling thread (`sys_poll` retries EINTR with the time that is left).
    static func poll(_ fd: CInt, events: Int16, wake: WakeEvent, timeout: Duration?) throws -> Outcome {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
        while true {
            var milliseconds: CInt = -1
            if let deadline {
                let left = clock.now.duration(to: deadline)
                if left <= .zero { return .timedOut }
                let (seconds, attoseconds) = left.components
                // Round up, so a wait never ends a fraction of a millisecond early and spins.
                let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                milliseconds = CInt(clamping: total)
            }
            switch sys_poll(&fds, fds.count, milliseconds) {
            case .failure(let e): throw SystemCallError(call: "poll", errno: e)
            case .success(0): if deadline != nil { continue }  // the loop head reports the timeout
            case .success:
                if fds[1].revents != 0 { return .woken }
                if fds[0].revents != 0 { return .ready }
            }
        }
    }
}
