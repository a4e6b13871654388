import NetRulesCore
import Testing

@testable import NetRulesDaemon

@Suite(.timeLimit(.minutes(1)))
struct HistoryTextBytesTests {
    /// An SSID that is not UTF-8 is stored as `\udcXX` and read back as bytes; the text quotes it.
    @Test func nonUTF8SSIDReadsBackAsBytesAndShowsQuoted() throws {
        let stored = JSONValue(FactValue.text([0x41, 0xFF, 0x22])).compact
        #expect(stored == #""A\udcff\"""#)
        let read = try JSONValue.parse(Array(stored.utf8))
        #expect(HistoryText.value(read, key: "ssid") == #""A\xff\"""#)
    }
}
