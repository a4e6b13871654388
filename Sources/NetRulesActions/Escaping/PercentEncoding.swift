/// Percent-encoding for values substituted into URLs and header values.
enum PercentEncoding {
    /// Encodes every byte except RFC 3986 unreserved characters, so a value stays inside its URL
    /// component: it can add no `/`, `?`, `#`, `&` or `@` of its own.
    static func urlComponent(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += Array("%\(hexUpper(byte))".utf8)
            }
        }
        return out
    }

    /// Encodes control bytes (CR and LF above all), spaces, `%` and non-ASCII bytes in a header
    /// value, so a value cannot end its header and start another, HTTP's trimming of surrounding
    /// whitespace cannot change it, and any bytes survive as ASCII.
    static func headerValue(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for byte in bytes {
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "%") {
                out += Array("%\(hexUpper(byte))".utf8)
            } else {
                out.append(byte)
            }
        }
        return out
    }

    private static func hexUpper(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
