import NetRulesConfig
import NetRulesCore
import Testing

/// Line splitting that agrees with libyaml's line numbers.
@Suite(.timeLimit(.minutes(1)))
struct SourceTextTests {
    @Test func linesBreakWhereLibYAMLBreaksThem() {
        let source = SourceText(file: "f", bytes: Array("a\r\nb\rc\u{85}d\u{2028}e\u{2029}f\n".utf8))
        #expect((1...7).map { source.line($0) } == ["a", "b", "c", "d", "e", "f", ""])
        #expect(source.line(0) == nil)
        #expect(source.line(8) == nil)
    }

    @Test func lineNumbersAgreeWithTheParserAcrossUnusualBreaks() throws {
        let text = "a: 1\r\nb: 2\rc: 3\u{85}d: 4\u{2028}e: 5\n"
        let root = try #require(parseYAML(text).root?.mapping)
        let source = SourceText(file: "f", bytes: Array(text.utf8))
        for (key, _) in root.entries {
            #expect(source.line(key.mark.line)?.hasPrefix(key.text + ":") == true, "line of \(key.text)")
        }
    }

    @Test func emptyFileHasOneEmptyLine() {
        let source = SourceText(file: "f", bytes: [])
        #expect(source.line(1) == "")
        #expect(source.line(2) == nil)
    }

    @Test func byteOrderMarkIsDropped() {
        let source = SourceText(file: "f", bytes: [0xEF, 0xBB, 0xBF] + Array("a: b\nc\n".utf8))
        #expect(source.line(1) == "a: b")
        #expect(source.line(2) == "c")
    }

    @Test func invalidUTF8ShowsAsReplacementCharacters() {
        let source = SourceText(file: "f", bytes: Array("a: ".utf8) + [0xFF] + Array("b".utf8))
        #expect(source.line(1) == "a: \u{FFFD}b")
    }
}
