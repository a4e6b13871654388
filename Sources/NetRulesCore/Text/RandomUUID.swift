/// A random UUID (RFC 4122 version 4) as lower-case text, `8-4-4-4-12` hex digits: the
/// idempotency key of a webhook delivery whose firing has no durable id.
package enum RandomUUID {
    /// A new UUID from the system's cryptographically secure generator.
    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }

    /// A new UUID from `generator`: 122 random bits, the version nibble 4 and the variant bits `10`.
    package static func make(using generator: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
        }
        return String(decoding: text, as: UTF8.self)
    }
}
