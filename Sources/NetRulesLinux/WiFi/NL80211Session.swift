import NetRulesCore
import NetRulesSystem

/// What the Wi-Fi observer's loop needs from nl80211: `NL80211Client` over the kernel's sockets,
/// or a scripted stand-in in tests (these machines have no cfg80211).
protocol NL80211Session: AnyObject, SendableMetatype {
    /// The current association of every wireless interface, from fresh dumps.
    func currentState() throws -> WiFiState
    /// A station's details now; every station of the interface when `mac` is nil.
    func station(index: Int32, mac: MACAddress?) throws -> [NL80211Message]
    /// Waits for association events; true when some are queued, false when `timeout`
    /// milliseconds passed first (-1: no timeout).
    /// - Throws: `CancellationError` when `wake` is signalled or the task is cancelled.
    func waitForEvents(on loop: ThreadExecutor, wake: WakeEvent, timeout: Int32) async throws -> Bool
    /// Reads the queued events without blocking.
    func drainEvents() throws -> [NL80211Message]
}
