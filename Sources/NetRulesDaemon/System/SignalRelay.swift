internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesSystem
import Synchronization

/// Hands caught signals to the live `SignalEvents`, from the eventfd that
/// `CNetRulesLinux_signal_handler` writes to: watched by the event loop of the first registration,
/// which wakes only for a signal.
///
/// Started by the first registration and never stopped (a signal handler may still fire after
/// the last registration ended; the descriptor it writes to must stay valid), so that loop must
/// live as long as the process: the `netrules` executable's main loop, the tests' shared one.
enum SignalRelay {
    private struct Registration {
        var signals: Set<SignalEvent>
        var continuation: AsyncStream<SignalEvent>.Continuation
    }

    private struct State {
        var wake: WakeEvent?
        var registrations: [UInt64: Registration] = [:]
        var nextID: UInt64 = 0
    }

    private static let state = Mutex(State())

    /// Adds a registration, catches its signals, and returns its id for `remove`.
    static func add(
        _ signals: Set<SignalEvent>, _ continuation: AsyncStream<SignalEvent>.Continuation, on loop: ThreadExecutor
    ) throws(SystemCallError) -> UInt64 {
        try state.withLock { state throws(SystemCallError) -> UInt64 in
            if state.wake == nil {
                let wake = try WakeEvent()
                // Never unwatched: the handler may fire after the last registration ended.
                _ = loop.watch(wake.fd) { deliver(wake) }
                CNetRulesLinux_signal_set_wake_fd(wake.fd)
                state.wake = wake
            }
            let id = state.nextID
            state.nextID += 1
            state.registrations[id] = Registration(signals: signals, continuation: continuation)
            SignalDispositions.catchSignals(signals.map(\.signalNumber))
            return id
        }
    }

    /// Ends a registration; the last one of a signal restores its disposition.
    static func remove(_ id: UInt64) {
        state.withLock { state in
            guard let registration = state.registrations.removeValue(forKey: id) else { return }
            SignalDispositions.release(registration.signals.map(\.signalNumber))
        }
    }

    /// Takes the signals caught since the last time and yields each to its registrations; does
    /// not block.
    private static func deliver(_ wake: WakeEvent) {
        // Reset before taking the pending set: a signal in between sets its bit and wakes the
        // next poll, so none is lost (at worst one extra wake-up finds nothing pending).
        wake.reset()
        let pending = CNetRulesLinux_signal_take_pending()
        guard pending != 0 else { return }
        let registrations = state.withLock { Array($0.registrations.values) }
        for event in SignalEvent.allCases where pending & (1 << UInt64(event.signalNumber)) != 0 {
            for registration in registrations where registration.signals.contains(event) {
                registration.continuation.yield(event)
            }
        }
    }
}
