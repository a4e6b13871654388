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
public enum JSONValue: Hashable, Sendable {
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
        String(decoding: compactBytes, as: UTF8.self)
    }

    /// `compact` as UTF-8 bytes, for a line that goes to a file or a socket as is.
    public var compactBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out, indent: nil, depth: 0)
        return out
    }

    /// The document with two-space indentation.
    public var pretty: String {
        var out: [UInt8] = []
        write(to: &out, indent: Array("  ".utf8), depth: 0)
        return String(decoding: out, as: UTF8.self)
    }

    // The writer appends UTF-8 bytes: appending to a String scalar by scalar cost several times
    // more, and this runs between an event and its action (the journal line of each firing).
    private func write(to out: inout [UInt8], indent: [UInt8]?, depth: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .number(let n): out.append(contentsOf: JSONValue.format(n).utf8)
        case .literal(let text): out.append(contentsOf: text.utf8)
        case .string(let s): JSONValue.quote(s, into: &out)
        case .bytes(let b):
            out.append(UInt8(ascii: "\""))
            JSONValue.escape(bytes: b, into: &out)
            out.append(UInt8(ascii: "\""))
        case .array(let items):
            if items.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, depth + 1)
                item.write(to: &out, indent: indent, depth: depth + 1)
            }
            newline(&out, indent, depth)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, depth + 1)
                JSONValue.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                value.write(to: &out, indent: indent, depth: depth + 1)
            }
            newline(&out, indent, depth)
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], _ indent: [UInt8]?, _ depth: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<depth { out.append(contentsOf: indent) }
    }

    /// Integral values print without a fraction (`3`), others in shortest round-trip form.
    static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        return FactValue.format(n)
    }

    private static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        escape(s, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    private static func escape(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { escape(validUTF8: $0, into: &out) }
    }

    /// Escapes valid UTF-8: `"`, `\\` and the C0 controls as JSON requires, and every other scalar
    /// ``TerminalText`` shows as an escape (DEL, the C1 controls, U+2028 and U+2029, the
    /// bidirectional and other format characters) as `\uXXXX`, a surrogate pair above U+FFFF;
    /// everything else is copied as is. JSON may carry those raw, but a reader that prints a value
    /// or splits lines would then obey them, so JSON and text output hide the same scalars.
    private static func escape(validUTF8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var index = 0
        var copied = 0
        func copyRun() {
            if copied < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<index])) }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x80 {
                let (scalar, length) = decodeScalar(bytes, at: index)
                if !TerminalText.needsEscaping(scalar) {
                    index += length
                    continue
                }
                copyRun()
                if scalar.value > 0xFFFF {
                    let offset = scalar.value - 0x10000
                    appendEscape(UInt16(0xD800 + (offset >> 10)), into: &out)
                    appendEscape(UInt16(0xDC00 + (offset & 0x3FF)), into: &out)
                } else {
                    appendEscape(UInt16(scalar.value), into: &out)
                }
                index += length
                copied = index
                continue
            }
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0x7F {
                index += 1
                continue
            }
            copyRun()
            switch byte {
            case 0x22: out.append(contentsOf: "\\\"".utf8)
            case 0x5C: out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            default: appendEscape(UInt16(byte), into: &out)
            }
            index += 1
            copied = index
        }
        copyRun()
    }

    /// The scalar of the valid UTF-8 sequence whose lead byte (at or above 0x80) is at `index`,
    /// and the sequence's length.
    private static func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int) {
        let lead = UInt32(bytes[index])
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        var value = lead & (0x7F >> length)
        for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// `\uXXXX` with lowercase hexadecimal digits.
    private static func appendEscape(_ unit: UInt16, into out: inout [UInt8]) {
        out.append(contentsOf: "\\u".utf8)
        appendHex(UInt8(unit >> 8), into: &out)
        appendHex(UInt8(unit & 0xFF), into: &out)
    }

    /// Valid UTF-8 runs are escaped as text; every other byte is `\udcXX`.
    private static func escape(bytes: [UInt8], into out: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            var start = 0
            while index < buffer.count {
                let length = validSequenceLength(bytes, at: index)
                if length > 0 {
                    index += length
                    continue
                }
                escape(validUTF8: UnsafeBufferPointer(rebasing: buffer[start..<index]), into: &out)
                out.append(contentsOf: "\\udc".utf8)
                appendHex(buffer[index], into: &out)
                index += 1
                start = index
            }
            escape(validUTF8: UnsafeBufferPointer(rebasing: buffer[start..<index]), into: &out)
        }
    }

    /// Two lowercase hexadecimal digits.
    private static func appendHex(_ byte: UInt8, into out: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { digits in
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
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
        var out: [UInt8] = []
        escape(s, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes escaped as the inside of a JSON string literal (without the quotes), `\udcXX` for
    /// those that are not UTF-8: a value substituted into a webhook's `json:` body.
    package static func escapedContents(bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        escape(bytes: bytes, into: &out)
        return String(decoding: out, as: UTF8.self)
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
