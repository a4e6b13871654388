/// `mqtt: { topic, json | payload, qos, retain }`: a message to the broker of the `mqtt:` section.
///
/// The topic is a template whose placeholders may only fill whole levels (`office/{{ssid}}`, never
/// `office-{{ssid}}`), and a value that would make a level empty or hold `/`, `+`, `#` or NUL refuses
/// the action when it runs (`renderTopic`): a network-supplied string never chooses where else a
/// message goes, nor becomes a wildcard. `json:` values are JSON-escaped, like a webhook's.
///
/// QoS 1 messages are kept in the outbox until the broker acknowledges them (at least once, with
/// the firing's id as the user property `firing-id`); a QoS 0 message is sent only while connected.
public struct MQTTAction: ActionDefinition {
    /// What the message carries.
    public enum Payload: Sendable {
        /// An empty message (neither `json:` nor `payload:`).
        case none
        /// A JSON document whose strings are templates, JSON-escaped when rendered.
        case json(ConfigValue)
        /// Raw text.
        case text(Template)
    }

    /// The topic, a template of whole levels.
    public var topic: Template
    /// The message's contents.
    public var payload: Payload
    /// 0 (at most once, only while connected) or 1 (at least once, through the outbox).
    public var qos: Int
    /// Whether the broker keeps the message as the topic's last value.
    public var retain: Bool

    /// The longest topic MQTT allows, in bytes.
    public static let maximumTopicBytes = 65_535

    /// Creates an `mqtt` action; by default QoS 1, not retained.
    public init(topic: Template, payload: Payload, qos: Int = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// `mqtt`.
    public var kind: String { "mqtt" }
    /// This action as `.mqtt`.
    public var action: Action { .mqtt(self) }
    /// `mqtt:` and the topic as written.
    public var description: String { "mqtt: \(topic.source)" }

    /// Why a topic template cannot be used, with the scalar offset in its source; nil when it can.
    ///
    /// Every level is either literal text without `+`, `#` or a control character, or exactly one placeholder that
    /// is not `{{env.NAME}}` (a topic is seen by every subscriber of the broker); no level is empty.
    public static func problem(in topic: Template) -> (message: String, offset: Int)? {
        guard !topic.source.isEmpty else { return ("the topic is empty", 0) }
        var offset = 0
        var placeholder = 0
        for level in topic.source.split(separator: "/", omittingEmptySubsequences: false) {
            let scalars = Array(level.unicodeScalars)
            defer {
                offset += scalars.count + 1
            }
            if scalars.isEmpty {
                return ("the topic has an empty level (a leading, trailing or doubled '/')", offset)
            }
            let opens = level.components(separatedBy: "{{").count - 1
            if opens == 0 {
                if let bad = scalars.firstIndex(where: { $0 == "+" || $0 == "#" }) {
                    return ("'\(scalars[bad])' is a wildcard and cannot be in a topic one publishes to", offset + bad)
                }
                if let bad = scalars.firstIndex(where: { $0.properties.generalCategory == .control }) {
                    return ("the topic holds a control character", offset + bad)
                }
                continue
            }
            let text = String(level)
            guard opens == 1, text.hasPrefix("{{"), text.hasSuffix("}}") else {
                return ("a placeholder must fill a whole topic level, such as 'office/{{ssid}}'", offset)
            }
            if placeholder < topic.names.count, case .environment = topic.names[placeholder] {
                return ("a topic cannot read {{env.NAME}}: every subscriber sees the topic", offset)
            }
            placeholder += 1
        }
        return nil
    }

    /// The topic for one firing, or why its values cannot make one: each placeholder's value must
    /// be a non-empty level of UTF-8 without `/`, `+`, `#` or a control character (C0, DEL, C1),
    /// and the topic at most
    /// `maximumTopicBytes` long.
    public func renderTopic(_ context: TemplateContext) -> Result<String, TopicError> {
        var out: [UInt8] = []
        for segment in topic.segments {
            switch segment {
            case .literal(let text):
                out += text.utf8
            case .placeholder(let name):
                let value = context.bytes(for: name)
                if value.isEmpty {
                    return .failure(TopicError(message: "{{\(name)}} is empty, which would make an empty topic level"))
                }
                if let bad = value.first(where: {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "+") || $0 == 0x23 || $0 == 0
                }) {
                    let what = bad == 0 ? "NUL" : "'\(Character(Unicode.Scalar(bad)))'"
                    return .failure(
                        TopicError(message: "{{\(name)}} holds \(what), which cannot stand in a topic level"))
                }
                guard let text = String(validating: value, as: UTF8.self) else {
                    return .failure(TopicError(message: "{{\(name)}} is not UTF-8, which a topic must be"))
                }
                if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                    return .failure(
                        TopicError(message: "{{\(name)}} holds a control character, which a topic should not"))
                }
                out += value
            }
        }
        guard out.count <= Self.maximumTopicBytes else {
            return .failure(TopicError(message: "the topic would be \(out.count) bytes; MQTT allows 65535"))
        }
        return .success(String(decoding: out, as: UTF8.self))
    }

    /// Why a firing's values cannot make the topic.
    public struct TopicError: Error, Sendable, CustomStringConvertible {
        /// The problem, naming the placeholder.
        public var message: String
        /// The message.
        public var description: String { message }
    }
}
