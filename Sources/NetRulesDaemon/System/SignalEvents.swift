import Dispatch
@preconcurrency import Glibc
import Synchronization

/// The signals the daemon reacts to, as an asynchronous sequence.
///
/// Built on `DispatchSource` signal sources (STYLE §24). `register(_:)` returns only once every
/// source is registered, so a daemon that awaits it before telling systemd it is ready cannot be
/// killed by an early `SIGTERM` or miss an early `SIGHUP`. While a sequence is live the signals
/// never run their default action; when it ends (``finish()``, or the task iterating it is
/// cancelled, or iteration stops) the sources are cancelled and the signals' original
/// dispositions come back.
///
/// One consumer: like `AsyncStream`, the sequence may be iterated by one task. Several
/// `SignalEvents` may be live at once; each receives every signal it registered.
///
/// Events are buffered (newest 32 kept), so a burst of `SIGHUP`s followed by a `SIGTERM` never
/// loses the `SIGTERM`. The kernel itself coalesces a signal that arrives while the same signal is
/// still pending.
public struct SignalEvents: AsyncSequence, Sendable {
    public typealias Element = SignalEvent
    public typealias Failure = Never
    public typealias AsyncIterator = AsyncStream<SignalEvent>.Iterator

    private let stream: AsyncStream<SignalEvent>
    private let continuation: AsyncStream<SignalEvent>.Continuation

    private init(stream: AsyncStream<SignalEvent>, continuation: AsyncStream<SignalEvent>.Continuation) {
        self.stream = stream
        self.continuation = continuation
    }

    /// Registers dispatch signal sources for `signals` and returns once all are registered.
    ///
    /// - Parameter signals: The signals to receive; by default `SIGHUP`, `SIGTERM` and `SIGINT`.
    /// - Returns: The sequence of received signals, live until ``finish()`` or until its consumer stops.
    public static func register(_ signals: Set<SignalEvent> = Set(SignalEvent.allCases)) async -> SignalEvents {
        let events = Array(signals)
        let numbers = events.map(\.signalNumber)
        let (stream, continuation) = AsyncStream.makeStream(
            of: SignalEvent.self, bufferingPolicy: .bufferingNewest(32))
        SignalDispositions.prepare(numbers)

        let queue = DispatchQueue(label: "netrules.signals")
        let countdown = RegistrationCountdown(events.count)
        var sources: [any DispatchSourceSignal] = []
        for event in events {
            let source = DispatchSource.makeSignalSource(signal: event.signalNumber, queue: queue)
            // Explicitly @Sendable and written here, in a library file with no actor isolation:
            // a closure that inherited main-actor isolation would trap when Dispatch calls it.
            let deliver: @Sendable () -> Void = { continuation.yield(event) }
            let registered: @Sendable () -> Void = { countdown.arrive() }
            source.setEventHandler(handler: deliver)
            source.setRegistrationHandler(handler: registered)
            // If registration fails (no fd left for the signalfd), libdispatch cancels the source
            // instead; counting that too keeps `register` from waiting forever. A later, ordinary
            // cancellation arrives after the wait ended and changes nothing.
            source.setCancelHandler(handler: registered)
            source.resume()
            sources.append(source)
        }
        let registration = SignalSourceRegistration(sources: sources, signals: numbers)
        continuation.onTermination = { _ in registration.cancel() }
        await countdown.wait()
        SignalDispositions.registered(numbers)
        return SignalEvents(stream: stream, continuation: continuation)
    }

    public func makeAsyncIterator() -> AsyncStream<SignalEvent>.Iterator {
        stream.makeAsyncIterator()
    }

    /// Ends the sequence: iteration finishes after the buffered events, the sources are cancelled
    /// and the signals' original dispositions are restored. Idempotent.
    public func finish() {
        continuation.finish()
    }
}

/// The dispatch sources of one `SignalEvents`.
///
/// `@unchecked Sendable`: `DispatchSourceSignal` is not `Sendable` on Linux. The sources are
/// created, configured and resumed before this object exists; afterwards the only access is
/// `cancel()`, which the atomic flag lets run once, and `DispatchSource.cancel()` is thread-safe.
private final class SignalSourceRegistration: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let signals: [CInt]
    private let cancelled = Atomic<Bool>(false)

    init(sources: [any DispatchSourceSignal], signals: [CInt]) {
        self.sources = sources
        self.signals = signals
    }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for source in sources { source.cancel() }
        SignalDispositions.release(signals)
    }
}

/// Counts registration handlers down and wakes the one waiter at zero.
private final class RegistrationCountdown: Sendable {
    private let state: Mutex<(remaining: Int, waiter: CheckedContinuation<Void, Never>?)>

    init(_ count: Int) {
        state = Mutex((count, nil))
    }

    func arrive() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.remaining <= 0 { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
