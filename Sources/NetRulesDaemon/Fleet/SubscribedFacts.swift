import NetRulesCore
import NetRulesMQTT

/// The facts `mqtt.NAME` of `subscribe: { NAME: TOPIC }`, as one link's messages make them.
///
/// Each is unknown until a message on its topic arrives, and unknown again as soon as the link
/// is disconnected or stopped: a value the broker may have changed since is not presented as
/// known. A message sets every subscription whose topic filter it matches
/// (`SubscribedPayload` decides the value). A refused payload (over the limit) is logged once
/// per run of refusals, so a flood of them costs one line, never the payload itself.
///
/// Not thread-safe: confined to `FleetService.run`'s task, like the `Session` that owns it.
struct SubscribedFacts {
    let subscriptions: [MQTTSettings.Subscription]
    let logger: Logger
    /// The names whose last message was refused, so the next refusal is not logged again.
    private var refusing: Set<String> = []
    /// The facts reported known since the last `forgetAll()`.
    private var known: Set<FactKey> = []

    init(_ subscriptions: [MQTTSettings.Subscription], logger: Logger) {
        self.subscriptions = subscriptions
        self.logger = logger
    }

    /// The topic filters the link subscribes to.
    var topics: [String] { subscriptions.map(\.topic) }

    /// The update a message makes, or nil when it is on no subscribed topic.
    mutating func message(topic: String, payload: [UInt8]) -> FactUpdate? {
        var update = FactUpdate()
        for subscription in subscriptions where SubscribedPayload.topic(topic, matches: subscription.topic) {
            let key = subscription.factKey
            switch SubscribedPayload.state(payload) {
            case .success(let state):
                refusing.remove(subscription.name)
                update[key] = state
                known.insert(key)
            case .failure(let refusal):
                if refusing.insert(subscription.name).inserted {
                    logger.warning(
                        "mqtt: refused a message on \(TerminalText.quoted(topic.prefix(200))) for \(key): \(refusal); "
                            + "\(key) is unknown until a shorter one arrives")
                }
                update[key] = .unknown
                known.remove(key)
            }
        }
        return update.isEmpty ? nil : update
    }

    /// The update that makes every fact reported known unknown again (the link went down or
    /// stopped); nil when none is known.
    mutating func forgetAll() -> FactUpdate? {
        guard !known.isEmpty else { return nil }
        var update = FactUpdate()
        for key in known { update[key] = .unknown }
        known = []
        refusing = []
        return update
    }
}

extension Session {
    /// Reports what a link event makes of the facts `mqtt.NAME`: a message on a subscribed
    /// topic sets them, a lost connection makes them unknown.
    func subscriptionEvent(_ event: MQTTLink.Event) {
        switch event {
        case .message(let topic, let payload, _):
            if let update = subscribed.message(topic: topic, payload: payload) { report(update) }
        case .disconnected:
            if let update = subscribed.forgetAll() { report(update) }
        case .connected:
            break
        }
    }
}
