import NetRulesSystem
import Synchronization

/// How often the Wi-Fi observer samples the associated access point's signal, or never.
///
/// Whoever knows who reads `signal` sets it (the daemon: from its rules and its `watch` clients)
/// while the observer runs. A change wakes the observer, so a new reader does not wait for the
/// next association event and a wait drops its timeout when the last reader leaves.
///
/// Thread-safe.
package final class SignalSampling: Sendable {
    private struct State {
        var interval: Duration?
        /// The wake events of the observers running with this setting.
        var listeners: [ObjectIdentifier: WakeEvent] = [:]
    }

    private let state: Mutex<State>

    /// - Parameter interval: the time between samples; nil to never sample.
    package init(interval: Duration? = nil) {
        state = Mutex(State(interval: interval))
    }

    /// The time between samples; nil while nothing reads the signal.
    package var interval: Duration? { state.withLock { $0.interval } }

    /// Changes the interval, waking the observers when it changed.
    package func set(_ interval: Duration?) {
        let listeners: [WakeEvent] = state.withLock { state in
            guard state.interval != interval else { return [] }
            state.interval = interval
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.signal() }
    }

    /// Signals `wake` at each change until `stopListening(_:)`.
    func listen(_ wake: WakeEvent) {
        state.withLock { $0.listeners[ObjectIdentifier(wake)] = wake }
    }

    func stopListening(_ wake: WakeEvent) {
        _ = state.withLock { $0.listeners.removeValue(forKey: ObjectIdentifier(wake)) }
    }
}
