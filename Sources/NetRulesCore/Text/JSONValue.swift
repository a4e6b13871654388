/// A JSON document, built in order and printed without Foundation.
///
/// Every `--json` output and the rule-language schema go through this type, so they print the
/// same way everywhere: keys in the order built, numbers as people write them, strings escaped
/// per RFC 8259.
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    /// A number printed exactly as given (e.g. `130.0` for seconds, so a reader sees a time).
    case literal(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.compact == rhs.compact
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(compact)
    }

    /// The document on one line, as JSON Lines need.
    public var compact: String {
        var out = ""
        write(to: &out, indent: nil, depth: 0)
        return out
    }

    /// The document with two-space indentation.
    public var pretty: String {
        var out = ""
        write(to: &out, indent: "  ", depth: 0)
        return out
    }

    private func write(to out: inout String, indent: String?, depth: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += JSONValue.format(n)
        case .literal(let text): out += text
        case .string(let s): JSONValue.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, depth + 1)
                item.write(to: &out, indent: indent, depth: depth + 1)
            }
            newline(&out, indent, depth)
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, depth + 1)
                JSONValue.quote(key, into: &out)
                out += indent == nil ? ":" : ": "
                value.write(to: &out, indent: indent, depth: depth + 1)
            }
            newline(&out, indent, depth)
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ indent: String?, _ depth: Int) {
        guard let indent else { return }
        out += "\n" + String(repeating: indent, count: depth)
    }

    /// Integral values print without a fraction (`3`), others in shortest round-trip form.
    static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        return FactValue.format(n)
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// A string escaped as the inside of a JSON string literal (without the quotes), for
    /// substituting values into JSON templates.
    public static func escapedContents(_ s: String) -> String {
        var out = ""
        quote(s, into: &out)
        return String(out.dropFirst().dropLast())
    }
}

extension JSONValue {
    /// Seconds with at least one fractional digit: `130.0`, `0.25`.
    public static func seconds(_ s: Double) -> JSONValue {
        .literal(s.isFinite ? String(s) : "null")
    }

    /// A fact's state as JSON: lists as arrays, numbers and Booleans as themselves, absent as null.
    public init(_ state: FactState) {
        switch state {
        case .unknown, .absent: self = .null
        case .value(let v): self.init(v)
        }
    }

    /// A fact value as JSON. Bytes that are not UTF-8 print escaped (`\xNN`), as a person reads them.
    public init(_ value: FactValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .bytes: self = .string(value.plainText)
        case .number(let n): self = .number(n)
        case .bool(let b): self = .bool(b)
        case .list(let items): self = .array(items.map(JSONValue.init))
        }
    }
}
