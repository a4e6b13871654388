import NetRulesCore

/// Writes JSON text as bytes, keeping text that is not UTF-8 recoverable.
///
/// Valid UTF-8 is written as is (with the escapes JSON requires). Each byte that is not part of a
/// valid UTF-8 sequence is written as the lone surrogate `\udcXX` (Python's "surrogateescape",
/// PEP 383): no valid text ever produces it, so it is unambiguous, and
/// `json.loads(s)[k].encode("utf-8", "surrogateescape")` returns the original bytes.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    mutating func raw(_ text: String) { bytes += text.utf8 }

    mutating func string(_ text: String) { string(bytes: Array(text.utf8)) }

    mutating func string(bytes input: [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        stringContent(bytes: input)
        bytes.append(UInt8(ascii: "\""))
    }

    /// The inside of a JSON string for `input`, without the quotes.
    static func stringContent(_ input: [UInt8]) -> [UInt8] {
        var writer = JSONWriter()
        writer.stringContent(bytes: input)
        return writer.bytes
    }

    /// Writes the inside of a JSON string: escapes, and `\udcXX` for bytes that are not UTF-8.
    mutating func stringContent(bytes input: [UInt8]) {
        var index = 0
        while index < input.count {
            let byte = input[index]
            let length = JSONWriter.validSequenceLength(input, at: index)
            if length == 0 {
                raw("\\udc" + JSONWriter.hex(byte))
                index += 1
                continue
            }
            if length > 1 {
                bytes += input[index..<(index + length)]
                index += length
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20, 0x7F: raw("\\u00" + JSONWriter.hex(byte))
            default: bytes.append(byte)
            }
            index += 1
        }
    }

    mutating func number(_ value: Double) {
        raw(value.isFinite ? FactValue.format(value) : "null")
    }

    /// Writes `{ "k": v, … }`, calling `body` once per member with a closure that writes the key.
    mutating func object<S: Sequence>(_ members: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for member in members {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            body(&self, member)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func array<S: Sequence>(_ elements: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            body(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A fact's value: text as a string, numbers, booleans, lists as arrays.
    mutating func factValue(_ value: FactValue) {
        switch value {
        case .string(let text): string(text)
        case .bytes(let raw): string(bytes: raw)
        case .number(let number): self.number(number)
        case .bool(let flag): raw(flag ? "true" : "false")
        case .list(let items): array(items) { $0.factValue($1) }
        }
    }

    /// The length of the valid UTF-8 sequence starting at `index`, or 0 when the byte starts none.
    static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
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

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { hex($0) }.joined() }
}
