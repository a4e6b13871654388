@preconcurrency import Glibc
import NetRulesSystem

/// The signals the daemon reacts to, as an asynchronous sequence.
///
/// A C signal handler records each signal and wakes one dedicated thread (`SignalRelay`), which
/// hands it to every live sequence that asked for it (STYLE §24 named `DispatchSource`; that
/// starts libdispatch's worker pool, whose timer wakes an idle daemon every second: design note
/// 0009). `register(_:)` returns with the handler installed, so a daemon that registers before
/// telling systemd it is ready cannot be killed by an early `SIGTERM` or miss an early `SIGHUP`.
/// While a sequence is live the signals never run their default action; when it ends
/// (``finish()``, or the task iterating it is cancelled, or iteration stops) the signals' original
/// dispositions come back.
///
/// One consumer: like `AsyncStream`, the sequence may be iterated by one task. Several
/// `SignalEvents` may be live at once; each receives every signal it registered.
///
/// Events are buffered (newest 32 kept), so a burst of `SIGHUP`s followed by a `SIGTERM` never
/// loses the `SIGTERM`. Signals that arrive faster than the relay thread wakes are coalesced, as
/// the kernel coalesces a signal that arrives while the same signal is still pending.
package struct SignalEvents: AsyncSequence, Sendable {
    package typealias Element = SignalEvent
    package typealias Failure = Never
    package typealias AsyncIterator = AsyncStream<SignalEvent>.Iterator

    private let stream: AsyncStream<SignalEvent>
    private let continuation: AsyncStream<SignalEvent>.Continuation

    private init(stream: AsyncStream<SignalEvent>, continuation: AsyncStream<SignalEvent>.Continuation) {
        self.stream = stream
        self.continuation = continuation
    }

    /// Catches `signals` and returns the sequence of those received from now on.
    ///
    /// - Parameters:
    ///   - signals: The signals to receive; by default `SIGHUP`, `SIGTERM` and `SIGINT`.
    ///   - loop: The event loop that watches the relay's eventfd, when this is the process's first
    ///     registration (it watches it for as long as the process lives).
    /// - Returns: The sequence of received signals, live until ``finish()`` or until its consumer stops.
    /// - Throws: `SystemCallError` when the relay's eventfd cannot be created (the first
    ///   registration in a process creates it; the signals are not caught then).
    package static func register(
        _ signals: Set<SignalEvent> = Set(SignalEvent.allCases), on loop: ThreadExecutor
    ) throws(SystemCallError) -> SignalEvents {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SignalEvent.self, bufferingPolicy: .bufferingNewest(32))
        let id = try SignalRelay.add(signals, continuation, on: loop)
        continuation.onTermination = { _ in SignalRelay.remove(id) }
        return SignalEvents(stream: stream, continuation: continuation)
    }

    package func makeAsyncIterator() -> AsyncStream<SignalEvent>.Iterator {
        stream.makeAsyncIterator()
    }

    /// Ends the sequence: iteration finishes after the buffered events and the signals' original
    /// dispositions are restored. Idempotent.
    package func finish() {
        continuation.finish()
    }
}
