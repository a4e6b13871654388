import NetRulesCore
import NetRulesSystem

@testable import NetRulesLinux

/// An nl80211 session on virtual time for `WiFiObserver.watch`: its state comes from the pyroute2
/// fixtures, each station reply carries the next scripted signal, and each wait does what the
/// script says, recording the timeout it was given.
final class ScriptedNL80211Session: NL80211Session {
    /// What one wait does.
    enum Wait {
        /// The timeout passes: virtual time moves on by it. A wait without a timeout (-1) that is
        /// told to time out would never have returned: the test fails.
        case timeOut
        /// An association event is queued.
        case event
        /// The wake event was signalled (a new interval, or a stop).
        case wake
    }

    var now = ContinuousClock.now
    var state: WiFiState
    /// The signals the next station replies carry, in order.
    var signals: [Int]
    /// The script: given the wait's number (from 1) and timeout, what it does.
    var script: (Int, Int32) -> Wait
    private(set) var timeouts: [Int32] = []
    private(set) var stationRequests: [(index: Int32, mac: MACAddress?)] = []
    private(set) var dumps = 0

    init(state: WiFiState, signals: [Int], script: @escaping (Int, Int32) -> Wait) {
        self.state = state
        self.signals = signals
        self.script = script
    }

    func currentState() throws -> WiFiState {
        dumps += 1
        return state
    }

    func station(index: Int32, mac: MACAddress?) throws -> [NL80211Message] {
        stationRequests.append((index, mac))
        return [.station(index: index, mac: mac, signalDBm: signals.isEmpty ? nil : signals.removeFirst())]
    }

    func waitForEvents(on loop: ThreadExecutor, wake: WakeEvent, timeout: Int32) async throws -> Bool {
        timeouts.append(timeout)
        switch script(timeouts.count, timeout) {
        case .timeOut:
            guard timeout >= 0 else { throw ScriptError.waitedForeverWithoutAnEvent }
            now += .milliseconds(Int(timeout))
            return false
        case .event:
            return true
        case .wake:
            throw CancellationError()
        }
    }

    func drainEvents() throws -> [NL80211Message] {
        [.roamed(index: NL80211Fixtures.index, bssid: NL80211Fixtures.accessPoint)]
    }

    enum ScriptError: Error {
        case waitedForeverWithoutAnEvent
    }
}
