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
}
