import NetRulesCore

/// How a webhook keeps `{{env.NAME}}` off the disk.
///
/// When a firing renders a webhook into the outbox, each `{{env.NAME}}` in the URL or body is
/// written as a token `{{secret-NONCE:ENCODING:NAME}}` instead of the value; before each attempt
/// the token is replaced with the variable's current value, encoded for where it stands
/// (percent-encoded in the URL, JSON-escaped in a `json:` body, raw in a `body:` text). The nonce
/// is 128 random bits chosen per entry and stored only in the entry (mode 0600), so a network
/// value rendered into the same body cannot forge a token and pull a secret into the request.
/// Headers keep secrets as separate parts (`OutboxEntry.HeaderPart`).
struct SecretTokens: Sendable, Hashable {
    enum Encoding: String, Sendable {
        case url
        case json
        case raw
    }

    let nonce: String

    init(nonce: String) { self.nonce = nonce }

    static func random() -> SecretTokens {
        let hex = (0..<2).map { _ in
            let text = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return SecretTokens(nonce: hex.joined())
    }

    private var prefix: [UInt8] { Array("{{secret-\(nonce):".utf8) }

    /// The token that stands for `{{env.NAME}}`, to be encoded with `encoding` when sent.
    func token(_ name: String, _ encoding: Encoding) -> [UInt8] {
        prefix + Array("\(encoding.rawValue):\(name)}}".utf8)
    }

    /// Whether `bytes` holds a token of this nonce.
    func occurs(in bytes: [UInt8]) -> Bool {
        let prefix = self.prefix
        guard bytes.count >= prefix.count else { return false }
        return (0...(bytes.count - prefix.count)).contains { bytes[$0...].starts(with: prefix) }
    }

    /// `bytes` with every token replaced by its variable's value from `environment` (an unset
    /// variable is empty), or by `<secret>` when `environment` is nil (for logs and messages).
    func substitute(in bytes: [UInt8], environment: [String: String]?) -> [UInt8] {
        let prefix = self.prefix
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == prefix[0], bytes[index...].starts(with: prefix),
                let (encoding, name, end) = parseToken(bytes, after: index + prefix.count)
            {
                if let environment {
                    let value = Array((environment[name] ?? "").utf8)
                    switch encoding {
                    case .url: out += PercentEncoding.urlComponent(value)
                    case .json: out += JSONValue.escapedContents(bytes: value).utf8
                    case .raw: out += value
                    }
                } else {
                    out += Array("<secret>".utf8)
                }
                index = end
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// The variables the tokens in `bytes` stand for, each once, in order.
    func names(in bytes: [UInt8]) -> [String] {
        let prefix = self.prefix
        var names: [String] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == prefix[0], bytes[index...].starts(with: prefix),
                let (_, name, end) = parseToken(bytes, after: index + prefix.count)
            {
                if !names.contains(name) { names.append(name) }
                index = end
            } else {
                index += 1
            }
        }
        return names
    }

    private func parseToken(_ bytes: [UInt8], after start: Int) -> (Encoding, String, Int)? {
        var index = start
        var text: [UInt8] = []
        while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "}") && bytes[index + 1] == UInt8(ascii: "}")) {
            text.append(bytes[index])
            index += 1
            if text.count > 256 { return nil }
        }
        guard index + 1 < bytes.count else { return nil }
        let parts = String(decoding: text, as: UTF8.self).split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let encoding = Encoding(rawValue: String(parts[0])) else { return nil }
        return (encoding, String(parts[1]), index + 2)
    }
}
