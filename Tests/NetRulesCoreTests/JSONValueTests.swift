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
}
