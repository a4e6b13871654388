import Testing

@testable import NetRulesCore

@Suite(.timeLimit(.minutes(1)))
struct JSONValueTests {
    /// One spelling for text that is not UTF-8, everywhere JSON is written (docs/plugins.md).
    @Test func bytesThatAreNotUTF8AreSurrogateEscapedAndReadBack() throws {
        let ssid: [UInt8] = [0x41, 0xFF, 0x22, 0xC3, 0xA9, 0x0A, 0xC3]
        let value = JSONValue(FactValue.text(ssid))
        #expect(value.compact == #""A\udcff\"é\n\udcc3""#)
        #expect(try JSONValue.parse(Array(value.compact.utf8)) == .bytes(ssid))
        #expect(JSONValue.escapedContents(bytes: ssid) == #"A\udcff\"é\n\udcc3"#)
        #expect(JSONValue.text(Array("é".utf8)) == .string("é"))
    }

    /// `--json` escapes every scalar the text escaper does (C0, DEL, C1, U+2028/2029, the bidi and
    /// other format characters) as `\uXXXX` with lowercase digits, and reads each back exactly.
    @Test func controlAndFormatScalarsAreEscapedAsUnicodeEscapes() throws {
        let written = [
            ("\u{0}\u{1B}\u{1F}\u{7F}", #"\u0000\u001b\u001f\u007f"#),
            ("nel\u{85} csi\u{9B} st\u{9C} \u{80}\u{9F}", #"nel\u0085 csi\u009b st\u009c \u0080\u009f"#),
            ("\u{2028}\u{2029}", #"\u2028\u2029"#),
            ("rlo\u{202E}\u{61C}\u{200E}\u{2066}\u{2069}", #"rlo\u202e\u061c\u200e\u2066\u2069"#),
            ("Off\u{200B}ice\u{FEFF}\u{2060}\u{34F}\u{AD}", #"Off\u200bice\ufeff\u2060\u034f\u00ad"#),
            ("tag\u{E0001}\u{E007F}", #"tag\udb40\udc01\udb40\udc7f"#),
            ("kept: é 東 \u{1F600} \u{2764}\u{FE0F} \u{A0}", "kept: é 東 \u{1F600} \u{2764}\u{FE0F} \u{A0}"),
        ]
        for (text, contents) in written {
            #expect(JSONValue.string(text).compact == "\"\(contents)\"")
            #expect(JSONValue.escapedContents(text) == contents)
            #expect(try JSONValue.parse(Array(JSONValue.string(text).compact.utf8)) == .string(text))
        }
        // In text that is not UTF-8 too, next to a surrogate-escaped byte.
        let bytes: [UInt8] = [0xFF] + Array("\u{85}\u{202E}\u{200B}".utf8)
        #expect(JSONValue.bytes(bytes).compact == #""\udcff\u0085\u202e\u200b""#)
        #expect(try JSONValue.parse(Array(JSONValue.bytes(bytes).compact.utf8)) == .bytes(bytes))
        // Every scalar below U+E0080 that text output escapes is an escape in JSON, and only those
        // (with `"` and `\`) are.
        for value in Array(UInt32(0x80)..<0x32000) + Array(0xE0000..<0xE0080) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let written = JSONValue.escapedContents(String(scalar))
            #expect(written.hasPrefix(#"\u"#) == TerminalText.needsEscaping(scalar), "U+\(String(value, radix: 16))")
        }
    }

    @Test func surrogatePairsAndOtherLoneSurrogatesReadAsBefore() throws {
        #expect(try JSONValue.parse(Array(#""\ud83d\ude00""#.utf8)) == .string("😀"))
        #expect(try JSONValue.parse(Array(#""\udc41""#.utf8)) == .string("\u{FFFD}"))
    }

    /// Nanosecond timestamps are past 2^53, where a Double rounds: an integer written as digits
    /// reads back exactly.
    @Test func anIntegerPast2To53ReadsExactly() throws {
        let document = try JSONValue.Members(
            try JSONValue.parse(Array(#"{"at":1733212345678901234,"odd":9007199254740993,"f":3.0,"x":2.5}"#.utf8)))
        #expect(try document.integer("at") == 1_733_212_345_678_901_234)
        #expect(try document.integer("odd") == 9_007_199_254_740_993)
        #expect(try document.integer("f") == 3)
        #expect(throws: JSONValue.ShapeError.self) { try document.integer("x") }
        #expect(try document.integer("missing") == nil)
    }

    /// A short integer's value is computed without `strtod`: it must be the very number `strtod`
    /// gives, sign of zero and leading zeros included; anything else still goes to `strtod`.
    @Test func aLiteralsNumberIsTheOneStrtodReads() {
        var texts = ["0", "-0", "7", "-7", "007", "-007", "999999999999999", "-999999999999999", "1000000000000000"]
        texts += [
            "9007199254740993", "1.5", "-2.50", "1e3", "-1E-2", "123456789012345678901234567890", "-", "1-", "--1", "",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            texts.append(String(Int64.random(in: -999_999_999_999_999...999_999_999_999_999, using: &generator)))
        }
        for text in texts {
            let expected = Double(text)
            let read = JSONValue.literal(text).numberValue
            #expect(read == expected, "\(text)")
            #expect(read?.sign == expected?.sign, "\(text)")
        }
    }

    /// Strings without escapes or non-ASCII bytes take a shorter path: they read as the general
    /// path reads them, and every other string still takes the general path.
    @Test func plainAndEscapedStringsReadAlike() throws {
        let document = try JSONValue.parse(
            Array(#"{"bench.seq": "a b", "k\u0065y": "caf\u00e9", "é": "é", "": "", "q": "\"", "n": 12345}"#.utf8))
        let members = try #require({ if case .object(let m) = document { m } else { nil } }())
        #expect(members.map(\.0) == ["bench.seq", "key", "é", "", "q", "n"])
        #expect(
            members.map(\.1) == [
                .string("a b"), .string("café"), .string("é"), .string(""), .string("\""), .literal("12345"),
            ])
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(Array("\"tab\there\"".utf8)) }
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(Array(#""open"#.utf8)) }
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(Array("1e999".utf8)) }
        #expect(try JSONValue.parse(Array("-123456789012345678".utf8)) == .literal("-123456789012345678"))
    }
    /// What MQTT publishes: strict UTF-8 with no `\udcXX`, each byte outside a valid sequence as
    /// the text `\xNN` that netrules shows a person.
    @Test func strictUTF8ShowsBytesThatAreNotUTF8AsTheTerminalDoes() throws {
        let document = JSONValue.object([
            ("ssid", JSONValue(FactValue.text([0xFF, 0xFE]))),
            ("list", .array([JSONValue(FactValue.text(Array("Café".utf8) + [0xC3]))])), ("n", .number(3)),
        ])
        let bytes = document.strictUTF8.compactBytes
        #expect(String(validating: bytes, as: UTF8.self) != nil)
        #expect(document.strictUTF8.compact == #"{"ssid":"\\xff\\xfe","list":["Café\\xc3"],"n":3}"#)
        #expect(try JSONValue.parse(bytes) == document.strictUTF8)
        #expect(document.strictUTF8.compact.contains(#"\ud"#) == false)
        #expect(document.compact.contains(#"\udcff"#))
    }
}
