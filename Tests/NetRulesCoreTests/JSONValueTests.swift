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
}

extension JSONValueTests {
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
