import NetRulesCore

/// `mqtt: { topic, json | payload, qos, retain }`: a message to the broker of the `mqtt:` section.
struct MQTTActionKind: ActionKind {
    let name = "mqtt"
    let summary =
        "Publishes a message to the broker of the 'mqtt:' section; QoS 1 at least once, through a durable outbox."

    var schema: JSONValue {
        Schema.object(
            [
                "topic": Schema.string(
                    "The topic; a placeholder fills a whole level ('office/{{ssid}}'), never '+', '#' or an empty level."
                ),
                "json": .object([("description", .string("A JSON payload; substituted values are JSON-escaped."))]),
                "payload": Schema.string("A raw text payload."),
                "qos": Schema.integer("0: at most once, only while connected; 1: at least once (default).", in: 0...1),
                "retain": Schema.boolean("Whether the broker keeps it as the topic's last message (default: false)."),
            ], required: ["topic"])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ActionParser) -> Action? {
        guard let m = parser.context.mapping(node, path, what: "'{ topic: ..., json: {...} }'") else { return nil }
        parser.context.rejectUnknownKeys(
            m, path, known: ["topic", "json", "payload", "qos", "retain"], what: "an mqtt action")
        var ok = true
        if parser.context.hasMQTTSection == false {
            parser.context.error(
                "an mqtt action needs an 'mqtt:' section with the broker, in one of the rule files", at: node.mark,
                path: path, hint: "add 'mqtt: { broker: mqtt://HOST:1883 }' (docs/mqtt.md)")
            ok = false
        }
        var topic: Template?
        if let topicNode = m["topic"] {
            topic = parser.context.template(topicNode, path.key("topic"), what: "a topic")
            if let written = topic, let problem = MQTTAction.problem(in: written) {
                let mark =
                    topicNode.scalar.map { parser.context.mark(ofOffset: problem.offset, in: $0) } ?? topicNode.mark
                parser.context.error(
                    problem.message, at: mark, path: path.key("topic"),
                    hint: "levels are separated by '/'; write 'office/{{ssid}}', not 'office-{{ssid}}'")
                topic = nil
            }
            if topic == nil { ok = false }
        } else {
            parser.context.error("an mqtt action needs 'topic'", at: m.mark, path: path)
            ok = false
        }
        var payload: MQTTAction.Payload = .none
        if m.entry("json") != nil, let text = m.entry("payload") {
            parser.context.error(
                "'json' and 'payload' cannot be combined", at: text.key.mark, path: path.key("payload"),
                hint: "a message has one payload: keep 'json' for a JSON document or 'payload' for text")
            ok = false
        } else if let json = m["json"] {
            if let v = parser.context.configValue(json, path.key("json")) { payload = .json(v) } else { ok = false }
        } else if let text = m["payload"] {
            if let t = parser.context.template(text, path.key("payload")) { payload = .text(t) } else { ok = false }
        }
        var qos = 1
        if let q = m["qos"] {
            if let n = parser.context.integer(q, path.key("qos"), in: 0...1) { qos = n } else { ok = false }
        }
        var retain = false
        if let r = m["retain"] {
            if let b = parser.context.bool(r, path.key("retain")) { retain = b } else { ok = false }
        }
        guard ok, let topic else { return nil }
        return .mqtt(MQTTAction(topic: topic, payload: payload, qos: qos, retain: retain))
    }
}
