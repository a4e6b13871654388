import NetRulesCore
import NetRulesMQTT

extension ActionRunner {
    /// Publishes an `mqtt:` action's message: QoS 1 through the outbox (kept while the broker is
    /// unreachable, at least once), QoS 0 straight to a connected broker or not at all.
    func publish(_ action: MQTTAction, in context: ActionContext, result: ActionResult) async -> ActionResult {
        var result = result
        let entry: OutboxEntry
        switch MQTTRendering.entry(for: action, in: context, actionIndex: result.index) {
        case .success(let rendered): entry = rendered
        case .failure(let error):
            result.outcome = .failed(error)
            return result
        }
        if action.qos == 1 { return await deliverThroughOutbox(entry, in: context, result: result) }
        guard let link = executors.delivery.mqtt.link else {
            result.outcome = .failed(
                ActionError(
                    .notConnected, "mqtt message on \(entry.url): no broker (the rules have no 'mqtt:' section)"))
            return result
        }
        let start = ContinuousClock.now
        let answer = await link.send(
            topic: entry.url, payload: entry.requestBody(environment: executors.delivery.environment) ?? [], qos: 0,
            retain: action.retain, userProperties: MQTTRendering.userProperties(of: entry))
        result.duration = ContinuousClock.now - start
        result.attempts = 1
        switch answer {
        case .delivered:
            result.outcome = .succeeded
        case .refused(let reason):
            result.outcome = .failed(ActionError(.brokerRefused, "mqtt message on \(entry.url): \(reason)"))
        case .notConnected:
            result.outcome = .failed(
                ActionError(
                    .notConnected,
                    "mqtt message on \(entry.url) not sent: the broker \(link.configuration.broker) is not connected "
                        + "(a QoS 0 message is never kept; 'qos: 1' keeps it until the broker is back)"))
        }
        return result
    }
}

extension Action {
    /// Whether the outbox owns the action once it started (a webhook, a QoS 1 `mqtt:` message):
    /// interrupted by a shutdown, it is resumed from the outbox rather than run again.
    var isDeliveredThroughOutbox: Bool {
        switch self {
        case .webhook: true
        case .mqtt(let mqtt): mqtt.qos == 1
        default: false
        }
    }
}
