/// A JSON document, built in order and printed without Foundation.
///
/// The package's one JSON writer: every `--json` output, the control protocol, the history, the
/// documents `run:` commands and plugins read, webhook `json:` bodies and the rule-language schema
/// go through this type, so they print the same way everywhere: keys in the order built, numbers
/// as people write them, strings escaped per RFC 8259.
///
/// Text that is not UTF-8 (an SSID is any 32 bytes) is `.bytes`. Each byte of it that is not part
/// of a valid UTF-8 sequence is written as the lone surrogate `\udcXX` (Python's
/// "surrogateescape", PEP 383): no valid text ever produces it, so nothing is lost and nothing can
/// be confused with it, and `json.loads(s)[k].encode("utf-8", "surrogateescape")` returns the
/// original bytes (docs/plugins.md). The reader (`parse`) turns it back into the byte.
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    /// A number printed exactly as given (e.g. `130.0` for seconds, so a reader sees a time).
    case literal(String)
    case string(String)
    /// Text that is not valid UTF-8, written with `\udcXX` for each byte outside a valid sequence.
    case bytes([UInt8])
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// Documents are equal when they print the same (`compact`): member order matters.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.compact == rhs.compact
    }

    /// Hashes the printed form, as `==` compares it.
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
        case .bytes(let b): JSONValue.quote(bytes: b, into: &out)
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
        escape(s, into: &out)
        out += "\""
    }

    static func quote(bytes: [UInt8], into out: inout String) {
        out += "\""
        escape(bytes: bytes, into: &out)
        out += "\""
    }

    private static func escape(_ s: String, into out: inout String) {
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
                    out += "\\u" + hex(scalar.value, digits: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
    }

    /// Valid UTF-8 runs are escaped as text; every other byte is `\udcXX`.
    private static func escape(bytes: [UInt8], into out: inout String) {
        var index = 0
        var start = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            if length > 0 {
                index += length
                continue
            }
            escape(String(decoding: bytes[start..<index], as: UTF8.self), into: &out)
            out += "\\udc" + hex(UInt32(bytes[index]), digits: 2)
            index += 1
            start = index
        }
        escape(String(decoding: bytes[start..<index], as: UTF8.self), into: &out)
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The length of the valid UTF-8 sequence starting at `index`, or 0 when the byte starts none.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        var lowest: UInt8 = 0x80
        var highest: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; highest = 0x9F
        case 0xF0: length = 4; lowest = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; highest = 0x8F
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            let (low, high) = offset == 1 ? (lowest, highest) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= low && byte <= high else { return 0 }
        }
        return length
    }

    /// A string escaped as the inside of a JSON string literal (without the quotes), for
    /// substituting values into JSON templates.
    public static func escapedContents(_ s: String) -> String {
        var out = ""
        escape(s, into: &out)
        return out
    }

    /// Bytes escaped as the inside of a JSON string literal (without the quotes), `\udcXX` for
    /// those that are not UTF-8: a value substituted into a webhook's `json:` body.
    package static func escapedContents(bytes: [UInt8]) -> String {
        var out = ""
        escape(bytes: bytes, into: &out)
        return out
    }

    /// Text from bytes: `.string` when they are valid UTF-8, else `.bytes`.
    public static func text(_ bytes: [UInt8]) -> JSONValue {
        if let string = String(validating: bytes, as: UTF8.self) { return .string(string) }
        return .bytes(bytes)
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

    /// A fact value as JSON. Text that is not UTF-8 stays `.bytes`, written with `\udcXX` escapes.
    public init(_ value: FactValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .bytes(let b): self = .bytes(b)
        case .number(let n): self = .number(n)
        case .bool(let b): self = .bool(b)
        case .list(let items): self = .array(items.map(JSONValue.init))
        }
    }
}
