@preconcurrency import Glibc
import Synchronization

/// Waits, without blocking any thread, until a descriptor is ready: the one way the daemon's
/// sources wait for the kernel (control connections, inotify, child pipes, …).
///
/// The wait is a watch of the event loop it is given (and a timer of it for the deadline): no
/// thread of its own, and the waiting task resumes right after the loop's `poll` said so.
package enum Readiness {
    /// Waits until `fd` is ready for `events`, `deadline` passes, or the task is cancelled.
    /// - Parameters:
    ///   - loop: the event loop that watches the descriptor.
    ///   - fd: the descriptor; its owner keeps it open until this returns.
    ///   - events: `POLLIN`, `POLLOUT`…
    ///   - deadline: nil waits without limit.
    /// - Returns: `.ready` or `.timedOut`.
    /// - Throws: `CancellationError` when the task was cancelled.
    package static func wait(
        on loop: ThreadExecutor, for fd: CInt, events: Int16 = Int16(POLLIN), deadline: ContinuousClock.Instant?
    ) async throws -> WaitOutcome {
        var descriptors = [pollfd(fd: fd, events: events, revents: 0)]
        return try await wait(on: loop, for: &descriptors, deadline: deadline)
    }

    /// Waits until one of `descriptors` is ready, `deadline` passes, or the task is cancelled;
    /// sets the `revents` of the first one the loop's poll reported.
    /// - Parameters:
    ///   - cancellable: false for a wait that cancellation does not end: a child process being
    ///     stopped because its task was cancelled must still be waited for until it is reaped.
    /// - Returns: `.ready` or `.timedOut`.
    /// - Throws: `CancellationError` when the task was cancelled (and `cancellable`).
    package static func wait(
        on loop: ThreadExecutor, for descriptors: inout [pollfd], deadline: ContinuousClock.Instant?,
        cancellable: Bool = true
    ) async throws -> WaitOutcome {
        if cancellable { try Task.checkCancellation() }
        for index in descriptors.indices { descriptors[index].revents = 0 }
        let (outcome, ready) = await LoopWait(loop).wait(descriptors, deadline: deadline, cancellable: cancellable)
        if let (index, revents) = ready { descriptors[index].revents = revents }
        if outcome == .woken { throw CancellationError() }
        return outcome
    }

    /// Returns once the task is cancelled, holding no thread meanwhile (a source that has nothing
    /// to watch, and must not end, waits here).
    package static func untilCancelled() async {
        let gate = CancellationGate()
        await withTaskCancellationHandler {
            await withCheckedContinuation { gate.park($0) }
        } onCancel: {
            gate.open()
        }
    }

    /// `wait(on:for:events:deadline:)` with a timeout from now; nil waits without limit.
    package static func wait(
        on loop: ThreadExecutor, for fd: CInt, events: Int16 = Int16(POLLIN), timeout: Duration?
    ) async throws -> WaitOutcome {
        try await wait(on: loop, for: fd, events: events, deadline: timeout.map { ContinuousClock.now + $0 })
    }
}

/// One wait on the daemon's loop: a watch per descriptor and maybe a timer; the first of
/// readiness, the deadline and cancellation ends it (`.woken` stands for cancellation), once, and
/// removes them all.
private final class LoopWait: Sendable {
    typealias Answer = (outcome: WaitOutcome, ready: (index: Int, revents: Int16)?)

    private struct State {
        var continuation: CheckedContinuation<Answer, Never>?
        var watches: [DescriptorWatch] = []
        var timer: LoopTimer?
        var ended = false
    }

    private let loop: ThreadExecutor
    private let state = Mutex(State())

    init(_ loop: ThreadExecutor) { self.loop = loop }

    func wait(_ descriptors: [pollfd], deadline: ContinuousClock.Instant?, cancellable: Bool) async -> Answer {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Answer, Never>) in
                let cancelledAlready = state.withLock { state -> Bool in
                    guard !state.ended else { return true }
                    state.continuation = continuation
                    return false
                }
                if cancelledAlready {
                    continuation.resume(returning: (.woken, nil))
                    return
                }
                let watches = descriptors.enumerated().map { index, entry in
                    loop.watch(entry.fd, events: entry.events) { [self] revents in end((.ready, (index, revents))) }
                }
                let timer = deadline.map { loop.at($0) { [self] in end((.timedOut, nil)) } }
                // Ended meanwhile (cancelled from another thread): remove what was just added.
                let keep = state.withLock { state -> Bool in
                    guard !state.ended else { return false }
                    state.watches = watches
                    state.timer = timer
                    return true
                }
                if !keep {
                    watches.forEach(loop.unwatch)
                    if let timer { loop.cancel(timer) }
                }
            }
        } onCancel: {
            if cancellable { end((.woken, nil)) }
        }
    }

    private func end(_ answer: Answer) {
        let (continuation, watches, timer) = state.withLock { state in
            state.ended = true
            defer {
                state.watches = []
                state.timer = nil
            }
            return (state.continuation.take(), state.watches, state.timer)
        }
        guard let continuation else { return }
        watches.forEach(loop.unwatch)
        if let timer { loop.cancel(timer) }
        continuation.resume(returning: answer)
    }
}

/// A continuation that cancellation resumes, whichever of parking and cancelling comes first.
private final class CancellationGate: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, open: Bool)>((nil, false))

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        let resume = state.withLock { state -> Bool in
            if state.open { return true }
            state.continuation = continuation
            return false
        }
        if resume { continuation.resume() }
    }

    func open() {
        state.withLock { state in
            state.open = true
            return state.continuation.take()
        }?.resume()
    }
}
