/// A small, strict JSON reader (RFC 8259), for the control protocol's lines and observer plugins'
/// output: one parser for every JSON netrules reads.
///
/// It keeps members in document order and numbers as written (`.literal`), so a document read and
/// printed again with `compact` comes out as it came in: `status --json` can print the daemon's
/// answer as is. Nesting is capped so a hostile line cannot exhaust the stack.
extension JSONValue {
    /// Why a text is not JSON.
    public struct SyntaxError: Error, CustomStringConvertible, Sendable {
        /// The byte offset in the input where reading failed.
        public var offset: Int
        /// What was wrong, as a phrase: `unexpected text after the document`.
        public var reason: String
        /// The reason and its byte offset.
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Parses one complete document; trailing whitespace is allowed, anything else is an error.
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the document") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        static let maximumDepth = 64

        func error(_ reason: String) -> SyntaxError { SyntaxError(offset: index, reason: reason) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth < Reader.maximumDepth else { throw error("nested too deeply") }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""):
                if let plain = plainString() { return .string(plain) }
                return .text(try string())
            case UInt8(ascii: "t"): return try word("true", .bool(true))
            case UInt8(ascii: "f"): return try word("false", .bool(false))
            case UInt8(ascii: "n"): return try word("null", .null)
            default: return try number()
            }
        }

        mutating func word(_ text: String, _ value: JSONValue) throws(SyntaxError) -> JSONValue {
            let expected = Array(text.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw error("unexpected character")
            }
            index += expected.count
            return value
        }

        mutating func object(depth: Int) throws(SyntaxError) -> JSONValue {
            index += 1
            var members: [(String, JSONValue)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key: String
                if let plain = plainString() {
                    key = plain
                } else {
                    key = String(decoding: try string(), as: UTF8.self)
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                members.append((key, try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                } else {
                    throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> JSONValue {
            index += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                } else {
                    throw error("expected ',' or ']'")
                }
            }
        }

        mutating func number() throws(SyntaxError) -> JSONValue {
            let start = index
            func digits(_ reader: inout Reader) -> Int {
                let from = reader.index
                while reader.index < reader.bytes.count, (0x30...0x39).contains(reader.bytes[reader.index]) {
                    reader.index += 1
                }
                return reader.index - from
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let integer = digits(&self)
            guard integer > 0 else { throw error("unexpected character") }
            if integer > 1, bytes[index - integer] == UInt8(ascii: "0") { throw error("leading zero") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw error("expected a digit") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits(&self) > 0 else { throw error("expected a digit") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            // `1e999` is valid JSON syntax but no number anything here can hold: refuse it rather
            // than carry infinity into facts, versions and durations. An integer of up to 15 digits
            // is always finite (the common case: a counter, a signal, a port).
            let signed = bytes[start] == UInt8(ascii: "-") ? 1 : 0
            let isShortInteger = integer == index - start - signed && integer <= 15
            if !isShortInteger {
                guard Double(text)?.isFinite == true else { throw error("number out of range") }
            }
            return .literal(text)
        }

        /// A string of printable ASCII with no escape (most keys and values), read as a whole
        /// without the decoding `string()` does; nil, with nothing read, for any other string.
        mutating func plainString() -> String? {
            var end = index + 1
            while end < bytes.count {
                switch bytes[end] {
                case UInt8(ascii: "\""):
                    let text = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                    index = end + 1
                    return text
                case UInt8(ascii: "\\"), 0..<0x20, 0x80...: return nil
                default: end += 1
                }
            }
            return nil
        }

        /// A string's bytes. Escapes are decoded, and a lone `\udc80`…`\udcff` is the byte it stands
        /// for (the surrogate escape `JSONValue.bytes` writes), so text that is not UTF-8 reads back
        /// as it was; invalid UTF-8 in the input itself reads as U+FFFD.
        mutating func string() throws(SyntaxError) -> [UInt8] {
            index += 1
            var out: [UInt8] = []
            var run: [UInt8] = []
            func flush(_ run: inout [UInt8], into out: inout [UInt8]) {
                out += String(decoding: run, as: UTF8.self).utf8
                run.removeAll(keepingCapacity: true)
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush(&run, into: &out)
                    return out
                case UInt8(ascii: "\\"):
                    flush(&run, into: &out)
                    try escape(into: &out)
                case 0..<0x20:
                    throw error("control character in a string")
                default:
                    run.append(byte)
                }
            }
            throw error("unterminated string")
        }

        mutating func escape(into out: inout [UInt8]) throws(SyntaxError) {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            index += 1
            let scalar: Unicode.Scalar
            switch byte {
            case UInt8(ascii: "\""): scalar = "\""
            case UInt8(ascii: "\\"): scalar = "\\"
            case UInt8(ascii: "/"): scalar = "/"
            case UInt8(ascii: "b"): scalar = "\u{08}"
            case UInt8(ascii: "f"): scalar = "\u{0C}"
            case UInt8(ascii: "n"): scalar = "\n"
            case UInt8(ascii: "r"): scalar = "\r"
            case UInt8(ascii: "t"): scalar = "\t"
            case UInt8(ascii: "u"):
                let high = try hex4()
                if (0xDC80...0xDCFF).contains(high) {
                    out.append(UInt8(high & 0xFF))
                    return
                }
                if (0xD800..<0xDC00).contains(high) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else {
                        scalar = "\u{FFFD}"
                        break
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else {
                        scalar = "\u{FFFD}"
                        break
                    }
                    scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                } else {
                    scalar = Unicode.Scalar(high) ?? "\u{FFFD}"
                }
            default:
                throw error("invalid escape")
            }
            out += String(scalar).utf8
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard bytes.count - index >= 4 else { throw error("invalid \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = hexDigit(bytes[index]) else { throw error("invalid \\u escape") }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case 0x30...0x39: UInt32(byte - 0x30)
            case 0x41...0x46: UInt32(byte - 0x41 + 10)
            case 0x61...0x66: UInt32(byte - 0x61 + 10)
            default: nil
            }
        }
    }
}

extension JSONValue {
    /// The value of the object member `key`, when this is an object that has one.
    public func member(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The text of a string value.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The value of a number, whether built (`.number`) or read (`.literal`).
    public var numberValue: Double? {
        switch self {
        case .number(let n): n
        case .literal(let text): Self.double(ofLiteral: text)
        default: nil
        }
    }

    /// `Double(text)`, with an integer of up to 15 digits (every plugin's counter) computed
    /// without `strtod`: exact, as `strtod` would round it, `-0` included.
    static func double(ofLiteral text: String) -> Double? {
        var magnitude: Int64 = 0
        var negative = false
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-"), !negative, digits == 0 {
                negative = true
                continue
            }
            guard (0x30...0x39).contains(byte), digits < 15 else { return Double(text) }
            magnitude = magnitude * 10 + Int64(byte - 0x30)
            digits += 1
        }
        guard digits > 0 else { return Double(text) }
        return negative ? -Double(magnitude) : Double(magnitude)
    }
}
