import NetRulesMQTT
import Synchronization

/// The broker `mqtt:` actions publish to: the daemon's one MQTT link while an `mqtt:` section has
/// one, nil otherwise. The fleet service attaches its link; the runner and its deliveries read it.
package final class MQTTOutlet: Sendable {
    private let current = Mutex<MQTTLink?>(nil)

    package init() {}

    /// The link now, or nil without one.
    package var link: MQTTLink? { current.withLock { $0 } }

    /// Whether there is a link and the broker has accepted its connection.
    package var isConnected: Bool { link?.isConnected ?? false }

    func attach(_ link: MQTTLink?) { current.withLock { $0 = link } }
}
