/// Standard base64 with padding (RFC 4648 §4): certificate pins as curl writes them, and the
/// bodies in outbox files.
///
/// Decoding is strict, so every text it accepts is exactly what `encode` writes for the bytes it
/// returns: only the 64 characters of the alphabet, a length that is a multiple of 4, at most two
/// `=` and only at the end, and pad bits that are zero (RFC 4648 §3.5). No line breaks, spaces or
/// other characters are skipped (§3.3).
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Each byte's value in the alphabet, or 0xFF for a byte that is not in it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The base64 text of `bytes`, padded with `=` to a multiple of 4 characters.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for (offset, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * offset) }
            for position in 0..<4 {
                out.append(
                    position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 0x3F] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes; nil when it is not strict base64 (see the type's discussion).
    package static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        let padding = characters.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            let isLast = index + 4 == characters.count
            let significant = isLast ? 4 - padding : 4
            var value = 0
            for position in 0..<significant {
                let digit = values[Int(characters[index + position])]
                guard digit != 0xFF else { return nil }
                value |= Int(digit) << (18 - 6 * position)
            }
            // Two characters carry one byte and three carry two; the bits past them must be zero.
            let byteCount = significant - 1
            guard value & (0xFF_FFFF >> (8 * byteCount)) == 0 else { return nil }
            for offset in 0..<byteCount { out.append(UInt8((value >> (16 - 8 * offset)) & 0xFF)) }
            index += 4
        }
        return out
    }
}
