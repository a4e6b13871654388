import NetRulesCore
import Testing

/// Base64 as RFC 4648 §4 writes it, and a decoder that takes exactly what the encoder writes.
@Suite(.timeLimit(.minutes(1)))
struct Base64Tests {
    /// RFC 4648 §10's test vectors, and the two characters past the letters and digits.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func encodesAndDecodesTheRFCVectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesPlusAndSlash() {
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.decode("+/8=") == [0xFB, 0xFF])
    }

    @Test func everyByteAtEveryPaddingReadsBack() {
        let bytes = (0...255).map(UInt8.init)
        for length in [0, 1, 2, 3, 254, 255, 256] {
            let prefix = Array(bytes.prefix(length))
            #expect(Base64.decode(Base64.encode(prefix)) == prefix)
        }
    }

    @Test(arguments: [
        // A length that is not a multiple of 4: padding left out, or one character too many.
        "Zg", "Zg=", "Z", "Zm9vY", "Zm9vYmFy=",
        // Padding anywhere but at the end, or more than two.
        "Zg==Zg==", "=Zg=", "Zg=a", "Zm=v", "Z===", "====", "Zm9v====",
        // Characters outside the alphabet: URL-safe base64, white space, non-ASCII, anything else.
        "-_8=", "Zm9v\n", " Zm9v", "Zm 9v", "Zg==\r\n", "Zgé=", "%%%%",
        // Pad bits that are not zero: another text for the bytes of `Zg==` and `Zm8=`.
        "Zh==", "Zm9=",
    ])
    func rejects(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
