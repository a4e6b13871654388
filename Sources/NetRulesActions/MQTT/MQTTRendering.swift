import NetRulesCore

/// Turns an `mqtt:` action and a firing into its message: the topic level by level
/// (`MQTTAction.renderTopic`), the payload like a webhook's body (`json:` values JSON-escaped,
/// `{{env.NAME}}` kept as a token read again when it is sent, never written to the outbox), but
/// `json:` as strict UTF-8 (`JSONValue.strictUTF8`: text that is not UTF-8 as `\xNN`).
enum MQTTRendering {
    /// The message as an outbox entry (a QoS 0 message is sent from it too, without being stored),
    /// or why the firing's values make no topic.
    static func entry(for action: MQTTAction, in context: ActionContext, actionIndex: Int) -> Result<
        OutboxEntry, ActionError
    > {
        let topic: String
        switch action.renderTopic(context.templateContext) {
        case .success(let rendered): topic = rendered
        case .failure(let problem):
            return .failure(ActionError(.invalidTopic, "the topic \(action.topic.source) cannot be made: \(problem)"))
        }
        let secrets = SecretTokens.random()
        var usesSecrets = false
        let payload: [UInt8]
        switch action.payload {
        case .none:
            payload = []
        case .json(let value):
            // Strict UTF-8, as every JSON netrules publishes: a value that is not UTF-8 shows as `\xNN`.
            payload = FiringDocument.json(value, context: context, secrets: secrets).strictUTF8.compactBytes
            usesSecrets = secrets.occurs(in: payload)
        case .text(let template):
            payload = WebhookRendering.render(
                template, in: context, secrets: secrets, .raw, usesSecrets: &usesSecrets, escape: { $0 })
        }
        return .success(
            OutboxEntry(
                idempotencyKey: WebhookRendering.idempotencyKey(firing: context.firing, actionIndex: actionIndex),
                rule: context.firing.rule, edge: context.firing.edge.rawValue, actionIndex: actionIndex,
                enqueuedAt: WebhookRendering.wallClockNanoseconds(), method: "PUBLISH", url: topic, headers: [],
                body: payload, timeoutMilliseconds: 0, attempts: 1, attemptsMade: 0, backoffMilliseconds: 0,
                waitsForOnline: false, secretNonce: usesSecrets ? secrets.nonce : nil,
                mqtt: OutboxEntry.Publication(qos: action.qos, retain: action.retain, firingID: context.firing.id)))
    }

    /// The user properties a message carries: the firing's id, when it has one.
    static func userProperties(of entry: OutboxEntry) -> [(String, String)] {
        entry.mqtt?.firingID.map { [("firing-id", $0)] } ?? []
    }
}
