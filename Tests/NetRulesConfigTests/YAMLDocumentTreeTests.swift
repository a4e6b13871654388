import NetRulesConfig
import NetRulesCore
import Testing

/// The untyped tree: shapes, styles, marks, and the absence of implicit typing.
@Suite(.timeLimit(.minutes(1)))
struct YAMLDocumentTreeTests {
    @Test func scalarsKeepTheirStyleAndText() {
        let (root, diagnostics) = parseYAML(
            """
            plain: Office
            single: 'it''s'
            double: "tab\\there"
            literal: |
              line one
              line two
            folded: >
              folded
              text
            """
        )
        #expect(diagnostics == [])
        #expect(
            dump(root) == """
                mapping @1:1
                  plain "plain" @1:1 -> plain "Office" @1:8
                  plain "single" @2:1 -> singleQuoted "it\\'s" @2:9
                  plain "double" @3:1 -> doubleQuoted "tab\\there" @3:9
                  plain "literal" @4:1 -> literal "line one\\nline two\\n" @4:10
                  plain "folded" @7:1 -> folded "folded text" @7:9
                """
        )
    }

    @Test func nestedMappingsAndListsKeepSourceOrderAndMarks() {
        let (root, diagnostics) = parseYAML(
            """
            rules:
              - id: office
                when:
                  ssid: Office
                do:
                  - run: echo hi
            """
        )
        #expect(diagnostics == [])
        #expect(
            dump(root) == """
                mapping @1:1
                  plain "rules" @1:1 ->
                    sequence @2:3
                      mapping @2:5
                        plain "id" @2:5 -> plain "office" @2:9
                        plain "when" @3:5 ->
                          mapping @4:7
                            plain "ssid" @4:7 -> plain "Office" @4:13
                        plain "do" @5:5 ->
                          sequence @6:7
                            mapping @6:9
                              plain "run" @6:9 -> plain "echo hi" @6:14
                """
        )
    }

    @Test func flowStyleMarksPointAtBracketsAndItems() {
        let (root, diagnostics) = parseYAML("{ a: 1, b: [x, y] }\n")
        #expect(diagnostics == [])
        #expect(
            dump(root) == """
                mapping @1:1
                  plain "a" @1:3 -> plain "1" @1:6
                  plain "b" @1:9 ->
                    sequence @1:12
                      plain "x" @1:13
                      plain "y" @1:16
                """
        )
    }

    /// libyaml counts columns in characters, which are Unicode scalars, so ours are too: not bytes, not graphemes.
    @Test(arguments: [
        ("é: ü", 4),  // é is one scalar, two bytes
        ("e\u{301}: ü", 5),  // e + combining acute: one grapheme, two scalars
        ("\"日本\": x", 7),  // three bytes per scalar
        ("👨‍👩‍👧: x", 8),  // one grapheme of five scalars, 18 bytes
        ("ssid: x", 7),
    ])
    func valueColumnCountsUnicodeScalars(line: String, column: Int) throws {
        let (root, diagnostics) = parseYAML(line + "\n")
        #expect(diagnostics == [])
        let entry = try #require(root?.mapping?.entries.first)
        #expect(entry.key.mark == SourceMark(line: 1, column: 1))
        #expect(entry.value.mark == SourceMark(line: 1, column: column))
        #expect(entry.value.scalar?.text == "ü" || entry.value.scalar?.text == "x")
    }

    @Test func multiByteCharactersBeforeANestedValue() {
        let (root, _) = parseYAML("naïve:\n  café: \"☕\"\n")
        #expect(
            dump(root) == """
                mapping @1:1
                  plain "naïve" @1:1 ->
                    mapping @2:3
                      plain "café" @2:3 -> doubleQuoted "☕" @2:9
                """
        )
    }

    /// YAML 1.1 would read these as booleans, numbers or dates; rule files keep the text as written.
    @Test(arguments: ["no", "yes", "on", "off", "true", "False", "0123", "1.0", "0x1F", "1e3", ".inf", "2001-12-14"])
    func plainScalarsStayText(value: String) throws {
        let (root, diagnostics) = parseYAML("ssid: \(value)\n")
        #expect(diagnostics == [])
        let scalar = try #require(root?.mapping?["ssid"]?.scalar)
        #expect(scalar == YAMLScalar(text: value, style: .plain, mark: SourceMark(line: 1, column: 7)))
        #expect(root?.mapping?["ssid"]?.kindDescription == "a string")
    }

    @Test func keysStayTextToo() {
        let (root, _) = parseYAML("on: yes\nversion: 1.0\n")
        #expect(
            dump(root) == """
                mapping @1:1
                  plain "on" @1:1 -> plain "yes" @1:5
                  plain "version" @2:1 -> plain "1.0" @2:10
                """
        )
    }

    @Test(arguments: [
        ("", "no document"),
        ("# only a comment\n", "no document"),
        ("# one\n   # two\n\n", "no document"),
        ("\u{FEFF}", "no document"),
        ("\u{FEFF}# comment\n", "no document"),
    ])
    func filesWithoutADocumentHaveNoRoot(text: String, _: String) {
        let (root, diagnostics) = parseYAML(text)
        #expect(root == nil)
        #expect(diagnostics == [])
    }

    @Test func anExplicitEmptyDocumentIsNull() {
        let (root, diagnostics) = parseYAML("---\n")
        #expect(diagnostics == [])
        #expect(dump(root) == #"plain "" @2:1"#)
        #expect(root?.kindDescription == "null")
    }

    @Test func byteOrderMarkDoesNotShiftColumns() {
        let (root, diagnostics) = parseYAML("\u{FEFF}ssid: Office\n")
        #expect(diagnostics == [])
        #expect(dump(root) == "mapping @1:1\n  plain \"ssid\" @1:1 -> plain \"Office\" @1:7")
    }

    @Test func crlfLineBreaksCountAsOne() {
        let (root, diagnostics) = parseYAML("a: 1\r\nb: 2\r\n")
        #expect(diagnostics == [])
        #expect(
            dump(root) == """
                mapping @1:1
                  plain "a" @1:1 -> plain "1" @1:4
                  plain "b" @2:1 -> plain "2" @2:4
                """
        )
    }

    @Test func aScalarDocumentIsItsOwnRoot() {
        let (root, diagnostics) = parseYAML("just text\n")
        #expect(diagnostics == [])
        #expect(dump(root) == #"plain "just text" @1:1"#)
    }

    @Test func emptyValuesAndNullKeysAreKept() {
        let (root, diagnostics) = parseYAML("a:\n~: b\n'': c\n")
        #expect(diagnostics == [])
        #expect(
            dump(root) == """
                mapping @1:1
                  plain "a" @1:1 -> plain "" @1:3
                  plain "~" @2:1 -> plain "b" @2:4
                  singleQuoted "" @3:1 -> plain "c" @3:5
                """
        )
    }
}
