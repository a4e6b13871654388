/// One pending webhook delivery or QoS 1 `mqtt:` message, as stored in
/// `<state-dir>/outbox/<idempotency-key>.json` (`OutboxEntry+Coding.swift`).
///
/// A message has `mqtt` set: `body` is its payload, `url` its topic and `method` `PUBLISH`; it is
/// attempted while the broker is connected, without an attempt budget (it waits for the broker,
/// within the outbox's limits).
///
/// The request is rendered when the firing runs (the facts of that moment), except header parts
/// that read `{{env.NAME}}`: those are stored as the variable's name and read again before every
/// attempt, so a secret never reaches the disk and a rotated token is picked up by retries.
struct OutboxEntry: Sendable {
    /// One piece of a header value: literal text, or an environment variable read at send time.
    struct HeaderPart: Sendable, Hashable {
        var text: String?
        var environment: String?
    }

    struct Header: Sendable {
        var name: String
        var parts: [HeaderPart]
    }

    /// How an `mqtt:` message is published.
    struct Publication: Sendable {
        var qos: Int
        var retain: Bool
        /// Sent as the user property `firing-id`; nil for a firing without a durable id.
        var firingID: String?
    }

    /// The format of this file; bumped when a field changes meaning.
    var version = 1
    /// A random UUID chosen at enqueue, sent as `Idempotency-Key` on every attempt.
    var idempotencyKey: String
    var rule: String
    var edge: String
    var actionIndex: Int
    /// Nanoseconds since the epoch at enqueue; pending entries are resumed in this order.
    var enqueuedAt: Int64
    var method: String
    var url: String
    var headers: [Header]
    var body: [UInt8]?
    var timeoutMilliseconds: Int64
    /// Total attempts allowed, the first included.
    var attempts: Int
    /// Attempts already made (persisted after each failed attempt, so a restart does not start over).
    var attemptsMade: Int
    var backoffMilliseconds: Int64
    var waitsForOnline: Bool
    /// The pins the server's key must match (`CURLOPT_PINNEDPUBLICKEY`); nil or empty: none.
    /// Optional so an outbox written before pins existed still reads.
    var pins: [String]?
    /// The PEM bundle of CAs trusted instead of the system's (`CURLOPT_CAINFO`); nil: the system's.
    var caFile: String?
    /// Set when `url` or `body` holds `SecretTokens` to fill in from the environment at send time.
    var secretNonce: String?
    /// Why the entry is in `failed/`: how its last attempt ended, or why the outbox dropped it.
    var failure: String?
    /// Set for an `mqtt:` message; nil for a webhook. Optional, so an outbox written before it
    /// existed still reads.
    var mqtt: Publication?

    /// The action's kind: `webhook` or `mqtt`.
    var kind: String { mqtt == nil ? "webhook" : "mqtt" }

    /// What it delivers, for messages: `webhook POST delivery KEY` or `mqtt message KEY on TOPIC`.
    var deliveryName: String {
        mqtt == nil ? "webhook \(method) delivery \(idempotencyKey)" : "mqtt message \(idempotencyKey) on \(url)"
    }

    var fileName: String { "\(idempotencyKey).json" }

    private var secrets: SecretTokens? { secretNonce.map(SecretTokens.init(nonce:)) }

    /// The URL to request, secrets read from `environment` now.
    func requestURL(environment: [String: String]) -> String {
        guard let secrets else { return url }
        return String(decoding: secrets.substitute(in: Array(url.utf8), environment: environment), as: UTF8.self)
    }

    /// The URL for messages and logs: secrets as `<secret>`.
    var displayURL: String {
        guard let secrets else { return url }
        return String(decoding: secrets.substitute(in: Array(url.utf8), environment: nil), as: UTF8.self)
    }

    /// The body to send, secrets read from `environment` now.
    func requestBody(environment: [String: String]) -> [UInt8]? {
        guard let body else { return nil }
        guard let secrets else { return body }
        return secrets.substitute(in: body, environment: environment)
    }

    /// The variables the request reads from the environment at send time, each once, in order.
    var environmentNames: [String] {
        var names: [String] = []
        for header in headers {
            for part in header.parts {
                if let name = part.environment, !names.contains(name) { names.append(name) }
            }
        }
        if let secrets {
            let found = secrets.names(in: Array(url.utf8)) + (body.map { secrets.names(in: $0) } ?? [])
            for name in found where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The header fields to send, secrets read from `environment` now.
    func renderedHeaders(environment: [String: String]) -> [(String, String)] {
        headers.map { header in
            let value = header.parts.map { part in
                part.text ?? PercentEncoding.headerValueText(environment[part.environment ?? ""] ?? "")
            }.joined()
            return (header.name, value)
        }
    }
}

extension PercentEncoding {
    static func headerValueText(_ text: String) -> String {
        String(decoding: headerValue(Array(text.utf8)), as: UTF8.self)
    }
}
