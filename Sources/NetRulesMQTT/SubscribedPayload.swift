import NetRulesCore

/// What a message on a `subscribe:` topic makes of its fact `mqtt.NAME` (docs/mqtt.md).
///
/// A payload is hostile network input, held like an SSID or a plugin's value: kept exact (text
/// that is not UTF-8 as bytes, control characters as they came), bounded in size, and escaped by
/// whoever shows it (`TerminalText`), quoted by whoever runs it (`run:`'s lexer).
///
/// - A payload that is one JSON scalar becomes that value: a number, `true`/`false`, a string
///   (`"open"` is `open`); `null` is known absent.
/// - An empty payload is known absent too: it is how MQTT clears a retained topic.
/// - Any other payload (`open`, `{"a":1}`, `[1,2]`, `1e999`, bytes that are not UTF-8) is its text.
/// - A payload over `limit` bytes is refused: the fact is unknown until a message within the
///   limit arrives, since the last message is what the fact promises and that one was not kept.
package enum SubscribedPayload {
    /// The most bytes a payload may have: beyond any door state, temperature or mode word, and
    /// short enough to log, show in a table and pass in a command line.
    package static let limit = 1024

    /// Why a payload was not kept.
    package struct Refusal: Error, Equatable, CustomStringConvertible {
        /// The payload's size in bytes.
        package let size: Int

        package init(size: Int) { self.size = size }

        package var description: String {
            "the message is \(size) bytes long; at most \(SubscribedPayload.limit) are kept"
        }
    }

    /// The fact's new state for `payload`, or why it is refused.
    package static func state(_ payload: [UInt8]) -> Result<FactState, Refusal> {
        guard payload.count <= limit else { return .failure(Refusal(size: payload.count)) }
        if payload.isEmpty { return .success(.absent) }
        // A payload that is not JSON is text, which is the common case (`open`).
        if let json = try? JSONValue.parse(payload) {
            switch json {
            case .null: return .success(.absent)
            case .bool, .number, .literal, .string, .bytes:
                // A number too large for a Double (`1e999`) stays its text, never infinity.
                switch FactValue(json: json) {
                case .number(let n) where !n.isFinite: break
                case let value?: return .success(.value(value))
                case nil: break
                }
            case .array, .object:
                break
            }
        }
        return .success(.value(.text(payload)))
    }

    /// Whether `topic` (a message's, never holding a wildcard) matches the topic filter `filter`:
    /// `+` stands for one whole level, a last `#` for the rest (the level before it included,
    /// so `a/#` matches `a`). A topic starting with `$` matches no filter starting with a
    /// wildcard (MQTT 3.1.1 §4.7.2). The same matching as `check`'s against the daemon's own
    /// topics (`MQTTTopicPattern`).
    package static func topic(_ topic: String, matches filter: String) -> Bool {
        MQTTTopicPattern(topic: topic).isMatched(by: filter)
    }
}
