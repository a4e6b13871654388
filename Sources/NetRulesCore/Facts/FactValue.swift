/// The value of a known fact.
///
/// Network-supplied text is not always UTF-8 (an SSID is any 32 bytes), so text that is not valid
/// UTF-8 is kept as `bytes` and compared byte for byte.
public enum FactValue: Hashable, Sendable {
    case string(String)
    case bytes([UInt8])
    case number(Double)
    case bool(Bool)
    case list([FactValue])

    /// Text from raw bytes: a `string` when the bytes are valid UTF-8, else `bytes`.
    public static func text(_ bytes: [UInt8]) -> FactValue {
        if let string = String(validating: bytes, as: UTF8.self) {
            return .string(string)
        }
        return .bytes(bytes)
    }

    /// The exact bytes of a text value (`string` or `bytes`); nil for other kinds.
    public var textBytes: [UInt8]? {
        switch self {
        case .string(let s): Array(s.utf8)
        case .bytes(let b): b
        default: nil
        }
    }

    /// The value as a string when it is text; non-UTF-8 bytes are escaped as `\xNN`.
    public var stringValue: String? {
        switch self {
        case .string(let s): s
        case .bytes(let b): TerminalText.escaped(bytes: b)
        default: nil
        }
    }

    /// The numeric value of a number (or of text that spells a number, as plugins may report).
    public var numberValue: Double? {
        switch self {
        case .number(let n): n
        case .string(let s): Double(s)
        default: nil
        }
    }

    /// The elements of a list, or the value itself as a one-element list.
    public var elements: [FactValue] {
        if case .list(let items) = self { return items }
        return [self]
    }

    /// The value as plain text, the way templates and environment variables carry it.
    ///
    /// Lists are joined with single spaces; numbers print without a trailing `.0` when integral.
    public var plainText: String {
        switch self {
        case .string(let s): s
        case .bytes(let b): TerminalText.escaped(bytes: b)
        case .number(let n): FactValue.format(n)
        case .bool(let b): b ? "true" : "false"
        case .list(let items): items.map(\.plainText).joined(separator: " ")
        }
    }

    /// The raw bytes of `plainText`, keeping non-UTF-8 text byte-exact.
    public var plainBytes: [UInt8] {
        switch self {
        case .bytes(let b):
            return b
        case .list(let items):
            var out: [UInt8] = []
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x20) }
                out += item.plainBytes
            }
            return out
        default:
            return Array(plainText.utf8)
        }
    }

    /// Formats a number the way a person writes it: `-61`, `2437`, `0.5`.
    public static func format(_ n: Double) -> String {
        if n.isFinite, abs(n) < 1e15, n == Double(Int64(n)) {
            return String(Int64(n))
        }
        return String(n)
    }

    /// The two lower-case hex digits of `byte`, as hex spellings of bytes (MACs, the `\xNN`
    /// escapes of ``TerminalText``) write them.
    public static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

extension FactValue: CustomStringConvertible {
    /// The value as plain text (see `plainText`).
    public var description: String { plainText }
}

extension FactValue: ExpressibleByStringLiteral {
    /// A `string` value, so a literal can stand for a fact's text.
    public init(stringLiteral value: String) { self = .string(value) }
}
