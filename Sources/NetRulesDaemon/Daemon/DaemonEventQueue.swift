import Synchronization

/// The daemon's events in arrival order: any thread adds one (`yield`), the daemon's task takes
/// them one at a time (`next`).
///
/// It does what `AsyncStream(bufferingPolicy: .unbounded)` did here, for the daemon's own event
/// type. The standard library's stream is generic code compiled outside this module: each yield
/// looked up generic metadata and witness tables dozens of times, about 0.03 ms per event on the
/// path from a link change to its action (design note 0004, item 21). Compiled here, the same
/// work is a lock, an append and, when the daemon's task is waiting, one resume.
final class DaemonEventQueue: Sendable {
    /// Whether an event was queued, as `AsyncStream.Continuation.YieldResult` tells.
    enum YieldResult {
        case enqueued
        /// After `finish()`: the event was dropped.
        case terminated
    }

    private struct State {
        var buffer: [Daemon.Event] = []
        /// The first event in `buffer` not yet taken.
        var head = 0
        /// The consumer waiting in `next()`; only while `buffer` holds nothing.
        var waiter: UnsafeContinuation<Daemon.Event?, Never>?
        var finished = false

        mutating func takeFirst() -> Daemon.Event? {
            guard head < buffer.count else { return nil }
            let event = buffer[head]
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: buffer.count <= 1_024)
                head = 0
            } else if head > 1_024, head * 2 > buffer.count {
                // A consumer that never quite catches up must not keep every event it took.
                buffer.removeFirst(head)
                head = 0
            }
            return event
        }
    }

    private let state = Mutex(State())

    /// How many events the buffer holds, taken ones included (tests check it stays bounded).
    var storedCount: Int { state.withLock { $0.buffer.count } }

    /// Queues `event` (or hands it to the waiting `next()`), unless the queue was finished.
    /// Safe from any thread; never blocks beyond a short lock.
    @discardableResult
    func yield(_ event: Daemon.Event) -> YieldResult {
        let outcome: (result: YieldResult, waiter: UnsafeContinuation<Daemon.Event?, Never>?) = state.withLock {
            state in
            if state.finished { return (.terminated, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (.enqueued, waiter)
            }
            state.buffer.append(event)
            return (.enqueued, nil)
        }
        outcome.waiter?.resume(returning: event)
        return outcome.result
    }

    /// Refuses further events; `next()` still returns those already queued, then nil.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The oldest queued event, waiting for one if none is queued; nil once the queue is finished
    /// and empty, or when the calling task is cancelled (which finishes the queue, as cancelling
    /// the task that iterates an `AsyncStream` terminates it). One consumer at a time.
    func next() async -> Daemon.Event? {
        if let ready = state.withLock({ $0.takeFirst() }) { return ready }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                let immediate: Daemon.Event?? = state.withLock { state in
                    if let event = state.takeFirst() { return .some(event) }
                    if state.finished { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            finish()
        }
    }
}
