/// A small JSON reader for tests that decodes strings to bytes, undoing `\udcXX` surrogate
/// escapes the way Python's "surrogateescape" does, so tests can compare values byte for byte.
indirect enum JSONProbe: Equatable {
    case null, bool(Bool), number(String), string([UInt8]), array([JSONProbe]), object([(String, JSONProbe)])

    static func == (lhs: JSONProbe, rhs: JSONProbe) -> Bool { "\(lhs)" == "\(rhs)" }

    /// The string at a path of object keys, as bytes.
    static func string(in document: [UInt8], at path: [String]) -> [UInt8]? {
        guard var value = parse(document) else { return nil }
        for key in path {
            guard case .object(let members) = value, let next = members.first(where: { $0.0 == key })?.1 else {
                return nil
            }
            value = next
        }
        if case .string(let bytes) = value { return bytes }
        return nil
    }

    static func parse(_ bytes: [UInt8]) -> JSONProbe? {
        var reader = Reader(bytes: bytes)
        let value = reader.value()
        reader.skipSpace()
        return reader.index == bytes.count ? value : nil
    }

    subscript(key: String) -> JSONProbe? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func value() -> JSONProbe? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, JSONProbe)] = []
                skipSpace()
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard case .string(let key)? = value(), let name = String(validating: key, as: UTF8.self) else {
                        return nil
                    }
                    skipSpace()
                    guard bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    guard let member = value() else { return nil }
                    members.append((name, member))
                    skipSpace()
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    guard bytes[index] == UInt8(ascii: "}") else { return nil }
                    index += 1
                    return .object(members)
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONProbe] = []
                skipSpace()
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    guard let item = value() else { return nil }
                    items.append(item)
                    skipSpace()
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    guard bytes[index] == UInt8(ascii: "]") else { return nil }
                    index += 1
                    return .array(items)
                }
            case UInt8(ascii: "\""):
                return string()
            case UInt8(ascii: "t"): index += 4; return .bool(true)
            case UInt8(ascii: "f"): index += 5; return .bool(false)
            case UInt8(ascii: "n"): index += 4; return .null
            default:
                let start = index
                while index < bytes.count, "-+.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
                return index > start ? .number(String(decoding: bytes[start..<index], as: UTF8.self)) : nil
            }
        }

        mutating func string() -> JSONProbe? {
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return .string(out) }
                guard byte == UInt8(ascii: "\\") else { out.append(byte); continue }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard let unit = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
                    else { return nil }
                    index += 4
                    if (0xDC80...0xDCFF).contains(unit) {
                        out.append(UInt8(unit - 0xDC00))
                    } else if (0xD800...0xDBFF).contains(unit), bytes[index] == UInt8(ascii: "\\") {
                        guard
                            let low = UInt32(
                                String(decoding: bytes[(index + 2)..<(index + 6)], as: UTF8.self), radix: 16)
                        else { return nil }
                        index += 6
                        out += Array(String(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!).utf8)
                    } else {
                        out += Array(String(Unicode.Scalar(unit) ?? "\u{FFFD}").utf8)
                    }
                default: out.append(escape)
                }
            }
            return nil
        }
    }
}
