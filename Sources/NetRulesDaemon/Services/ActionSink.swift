import NetRulesActions
import NetRulesCore
import NetRulesMQTT

/// Where the daemon hands firings: the action runner, or a recording stand-in in tests.
package protocol ActionSink: Sendable {
    /// Every action's result, as it ends.
    var results: AsyncStream<ActionResult> { get }
    /// Queues a firing; its actions run in order.
    func submit(_ firing: Firing, wallTime: String) async
    /// Returns once nothing is queued or running.
    func drain() async
    /// Stops running actions (shutdown's grace period is over).
    func stop() async
    /// Shutdown began: no firing starts from now on; queued ones stay in flight, not started.
    func startNoMoreFirings() async
    /// Picks up webhook deliveries a previous process left in the outbox.
    func resumeOutbox() async
    /// `connectivity` changed: deliveries waiting for `online` may go.
    func connectivityChanged(to value: String?) async
    /// What the webhook outbox holds, for `status`; nil when this sink has none.
    func outbox() async -> OutboxSize?
    /// The MQTT link `mqtt:` actions publish to (nil: none); called again when it connects.
    func brokerChanged(_ link: MQTTLink?) async
}

extension ActionSink {
    /// A sink without `mqtt:` actions ignores the broker.
    package func brokerChanged(_ link: MQTTLink?) async {}
    /// A sink that queues nothing has nothing to hold back.
    package func startNoMoreFirings() async {}
}

extension ActionRunner: ActionSink {
    package func outbox() async -> OutboxSize? { await outboxSize() }
}
