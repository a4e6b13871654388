@preconcurrency import Glibc
import FoundationEssentials
import NetRulesCore

/// Turns a `webhook:` action and a firing into an outbox entry.
///
/// Substituted values are URL-encoded in the URL, JSON-escaped in `json:`, and in header values
/// have control characters, `%` and non-ASCII bytes percent-encoded (so no value can inject a
/// header); a `body:` text gets the values raw.
enum WebhookRendering {
    static func entry(for action: WebhookAction, in context: ActionContext, actionIndex: Int) -> OutboxEntry {
        var headers = action.headers.map { header in
            OutboxEntry.Header(name: header.name, parts: parts(of: header.value, in: context))
        }
        let body: [UInt8]?
        var contentType: String?
        switch action.body {
        case .none:
            body = nil
        case .json(let value):
            var json = JSONWriter()
            json.configValue(value, context: context)
            body = json.bytes
            contentType = "application/json"
        case .text(let template):
            body = context.render(template)
            contentType = "text/plain; charset=utf-8"
        }
        if let contentType, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(OutboxEntry.Header(name: "Content-Type", parts: [.init(text: contentType)]))
        }
        let url = String(decoding: context.render(action.url, escape: PercentEncoding.urlComponent), as: UTF8.self)
        return OutboxEntry(
            idempotencyKey: UUID().uuidString.lowercased(), rule: context.firing.rule, edge: context.firing.edge.rawValue,
            actionIndex: actionIndex, enqueuedAt: wallClockNanoseconds(), method: action.method, url: url,
            headers: headers, body: body.map { Data($0) }, timeoutMilliseconds: milliseconds(action.timeout),
            attempts: max(1, action.attempts), attemptsMade: 0, backoffMilliseconds: milliseconds(action.backoff),
            waitsForOnline: action.waitsForOnline
        )
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

    private static func wallClockNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
