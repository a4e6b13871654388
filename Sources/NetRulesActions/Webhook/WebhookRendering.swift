@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Turns a `webhook:` action and a firing into an outbox entry.
///
/// Substituted values are URL-encoded in the URL, JSON-escaped in `json:`, and in header values
/// have control characters, `%` and non-ASCII bytes percent-encoded (so no value can inject a
/// header); a `body:` text gets the values raw. `{{env.NAME}}` is never rendered into the entry:
/// headers keep it as a part and the URL and body as a token (`SecretTokens`), read again from the
/// environment before each attempt.
enum WebhookRendering {
    static func entry(for action: WebhookAction, in context: ActionContext, actionIndex: Int) -> OutboxEntry {
        var headers = action.headers.map { header in
            OutboxEntry.Header(name: header.name, parts: parts(of: header.value, in: context))
        }
        let secrets = SecretTokens.random()
        var usesSecrets = false
        func render(_ template: Template, _ encoding: SecretTokens.Encoding, escape: ([UInt8]) -> [UInt8]) -> [UInt8] {
            Self.render(template, in: context, secrets: secrets, encoding, usesSecrets: &usesSecrets, escape: escape)
        }
        let body: [UInt8]?
        var contentType: String?
        switch action.body {
        case .none:
            body = nil
        case .json(let value):
            let json = FiringDocument.json(value, context: context, secrets: secrets).compactBytes
            body = json
            usesSecrets = usesSecrets || secrets.occurs(in: json)
            contentType = "application/json"
        case .text(let template):
            body = render(template, .raw) { $0 }
            contentType = "text/plain; charset=utf-8"
        }
        if let contentType, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(OutboxEntry.Header(name: "Content-Type", parts: [.init(text: contentType)]))
        }
        let url = String(decoding: render(action.url, .url, escape: PercentEncoding.urlComponent), as: UTF8.self)
        return OutboxEntry(
            idempotencyKey: idempotencyKey(firing: context.firing, actionIndex: actionIndex), rule: context.firing.rule,
            edge: context.firing.edge.rawValue,
            actionIndex: actionIndex, enqueuedAt: wallClockNanoseconds(), method: action.method, url: url,
            headers: headers, body: body, timeoutMilliseconds: milliseconds(action.timeout),
            attempts: max(1, action.attempts), attemptsMade: 0, backoffMilliseconds: milliseconds(action.backoff),
            waitsForOnline: action.waitsForOnline, pins: action.pins.isEmpty ? nil : action.pins,
            caFile: action.caFile,
            secretNonce: usesSecrets ? secrets.nonce : nil
        )
    }

    /// Renders `template` for the firing, each `{{env.NAME}}` as a token of `secrets` (setting
    /// `usesSecrets`), every other value through `escape`.
    static func render(
        _ template: Template, in context: ActionContext, secrets: SecretTokens, _ encoding: SecretTokens.Encoding,
        usesSecrets: inout Bool, escape: ([UInt8]) -> [UInt8]
    ) -> [UInt8] {
        var out: [UInt8] = []
        for segment in template.segments {
            switch segment {
            case .literal(let text): out += text.utf8
            case .placeholder(.environment(let name)):
                usesSecrets = true
                out += secrets.token(name, encoding)
            case .placeholder(let name): out += escape(context.templateContext.bytes(for: name))
            }
        }
        return out
    }

    /// The key a delivery keeps across retries and restarts: derived from the firing's durable id
    /// when it has one (so a firing resubmitted after a crash maps to the same key and is not sent
    /// twice), else random.
    static func idempotencyKey(firing: Firing, actionIndex: Int) -> String {
        guard let id = firing.id else { return RandomUUID.make() }
        func fnv(_ text: String, seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return hash
        }
        let name = "\(id)#\(actionIndex)"
        let hex = [fnv(name, seed: 0xcbf2_9ce4_8422_2325), fnv(name, seed: 0x8422_2325_cbf2_9ce4)]
            .map { String($0, radix: 16) }.map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
        let c = Array(hex)
        return [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
    }

    /// A header value's pieces: `{{env.NAME}}` stays a reference, everything else is rendered.
    static func parts(of template: Template, in context: ActionContext) -> [OutboxEntry.HeaderPart] {
        var parts: [OutboxEntry.HeaderPart] = []
        var text: [UInt8] = []
        func flush() {
            if !text.isEmpty { parts.append(.init(text: String(decoding: text, as: UTF8.self))) }
            text = []
        }
        for segment in template.segments {
            switch segment {
            case .literal(let literal):
                // The rule's own text is trusted as written; only substituted values are encoded.
                text += Array(literal.utf8)
            case .placeholder(.environment(let name)):
                flush()
                parts.append(.init(environment: name))
            case .placeholder(let name):
                text += PercentEncoding.headerValue(context.templateContext.bytes(for: name))
            }
        }
        flush()
        return parts
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    static func wallClockNanoseconds() -> Int64 {
        sys_realtimeNanoseconds()
    }
}
