import NetRulesConfig
import NetRulesCore
import Testing

/// Everything the YAML layer rejects, asserted as the full text a user reads.
@Suite(.timeLimit(.minutes(1)))
struct YAMLDocumentDiagnosticTests {
    // MARK: Rule-file restrictions

    @Test func duplicateKeysAreReportedAtTheSecondKeyAndParsingGoesOn() throws {
        let text = """
            rules:
              - when:
                  ssid: Office
                  bssid: x
                  ssid: Home
              - id: b
                id: c
            """
        #expect(
            renderedDiagnostics(text, file: "rules/office.yaml") == """
                rules/office.yaml:5:7: error: duplicate key 'ssid' (first defined at 3:7)
                      ssid: Home
                      ^

                rules/office.yaml:7:5: error: duplicate key 'id' (first defined at 6:5)
                    id: c
                    ^
                """
        )
        let (root, diagnostics) = parseYAML(text)
        #expect(diagnostics.map(\.keyPath) == ["rules[0].when.ssid", "rules[1].id"])
        // The first definition wins and the repeat is left out.
        let when = try #require(root?.mapping?["rules"]?.sequence?.items.first?.mapping?["when"]?.mapping)
        #expect(when.entries.map(\.key.text) == ["ssid", "bssid"])
        #expect(when["ssid"]?.scalar?.text == "Office")
    }

    @Test func duplicateKeysInABigMappingAreFoundToo() {
        let keys = (0..<40).map { "key\($0): \($0)" }.joined(separator: "\n")
        let (root, diagnostics) = parseYAML(keys + "\nkey3: again\nkey39: again\n")
        #expect(
            diagnostics.map(\.description) == [
                "rules.yaml:41:1: error: duplicate key 'key3' (first defined at 4:1)",
                "rules.yaml:42:1: error: duplicate key 'key39' (first defined at 40:1)",
            ]
        )
        #expect(root?.mapping?.entries.count == 40)
    }

    @Test func quotedAndPlainSpellingsOfAKeyAreTheSameKey() {
        #expect(
            renderedDiagnostics("ssid: a\n\"ssid\": b\n") == """
                rules.yaml:2:1: error: duplicate key 'ssid' (first defined at 1:1)
                "ssid": b
                ^
                """
        )
    }

    @Test func aSecondDocumentIsReportedAndTheFirstIsKept() {
        let text = "a: 1\n---\nb: 2\n---\nc: 3\n"
        #expect(
            renderedDiagnostics(text) == """
                rules.yaml:2:1: error: a rule file holds one YAML document; found a second one
                ---
                ^
                """
        )
        #expect(dump(parseYAML(text).root) == "mapping @1:1\n  plain \"a\" @1:1 -> plain \"1\" @1:4")
    }

    /// libyaml wants `---` before a document that follows `...`, so this one is a syntax error.
    @Test func contentAfterAnEndMarkerIsASyntaxError() {
        #expect(
            renderedDiagnostics("a: 1\n...\nb: 2\n") == """
                rules.yaml:3:1: error: invalid YAML: did not find expected <document start>
                b: 2
                ^
                  hint: the document ended before this line, and a rule file holds one YAML document
                """
        )
    }

    @Test func anchorsAndAliasesAreReportedWhereTheyAre() {
        let text = "base: &office Office\ncopy: *office\n"
        #expect(
            renderedDiagnostics(text) == """
                rules.yaml:1:7: error: anchors and aliases are not supported in rule files
                base: &office Office
                      ^
                  hint: write the value out in full everywhere it is needed

                rules.yaml:2:7: error: anchors and aliases are not supported in rule files
                copy: *office
                      ^
                  hint: write the value out in full everywhere it is needed
                """
        )
        // The anchored value is kept; the alias stands in as its own text.
        #expect(
            dump(parseYAML(text).root) == """
                mapping @1:1
                  plain "base" @1:1 -> plain "Office" @1:7
                  plain "copy" @2:1 -> plain "*office" @2:7
                """
        )
    }

    @Test func anchorsOnContainersAreReported() {
        #expect(
            parseYAML("a: &x\n  b: c\nd: &y [e]\n").diagnostics.map(\.description) == [
                "rules.yaml:1:4: error: anchors and aliases are not supported in rule files",
                "rules.yaml:3:4: error: anchors and aliases are not supported in rule files",
            ]
        )
    }

    @Test func nonScalarKeysAreReported() {
        let text = "[a, b]: c\n? {x: 1}\n: y\nz: 2\n"
        #expect(
            renderedDiagnostics(text) == """
                rules.yaml:1:1: error: a mapping key must be a string, found a list
                [a, b]: c
                ^

                rules.yaml:2:3: error: a mapping key must be a string, found a mapping
                ? {x: 1}
                  ^
                """
        )
        #expect(dump(parseYAML(text).root) == "mapping @1:1\n  plain \"z\" @4:1 -> plain \"2\" @4:4")
    }

    @Test func tagsAreReported() {
        #expect(
            renderedDiagnostics("ssid: !!str no\nother: !custom [x]\n") == """
                rules.yaml:1:7: error: tags such as '!!str' are not supported in rule files
                ssid: !!str no
                      ^
                  hint: remove the tag; values are read as the text written, and quotes keep a value like null a string

                rules.yaml:2:8: error: tags such as '!custom' are not supported in rule files
                other: !custom [x]
                       ^
                  hint: remove the tag; values are read as the text written, and quotes keep a value like null a string
                """
        )
    }

    /// Key paths name the node a diagnostic is about; list indices count from 0, and a key's path stops at its
    /// mapping.
    @Test(
        arguments: [
            ("a: *x\n", "a"),
            ("rules:\n  - id: a\n  - [b, *x]\n", "rules[1][1]"),
            ("rules:\n  - when: {ssid: a, ssid: b}\n", "rules[0].when.ssid"),
            ("rules:\n  - when: !!map {ssid: a}\n", "rules[0].when"),
            ("rules:\n  - &r id: a\n", "rules[0]"),
            ("? [a, *x]\n: b\n", nil),
            ("*x\n", nil),
        ] as [(String, String?)]
    )
    func keyPathsPointAtTheNode(text: String, keyPath: String?) {
        let diagnostics = parseYAML(text).diagnostics
        #expect(diagnostics.count >= 1)
        #expect(diagnostics.first?.keyPath == keyPath)
    }

    @Test func nestingIsBounded() {
        let text = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        let (root, diagnostics) = parseYAML(text)
        #expect(root == nil)
        #expect(diagnostics.map(\.description) == ["rules.yaml:1:257: error: the file nests deeper than 256 levels"])
        let deepest = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(parseYAML(deepest).diagnostics == [])
        #expect(parseYAML(deepest).root?.sequence != nil)
    }

    @Test func allProblemsComeBackSortedByPosition() {
        let (_, diagnostics) = parseYAML("a: &x 1\nb: !!str 2\na: 3\nc: *x\n")
        #expect(
            diagnostics.map(\.description) == [
                "rules.yaml:1:4: error: anchors and aliases are not supported in rule files",
                "rules.yaml:2:4: error: tags such as '!!str' are not supported in rule files",
                "rules.yaml:3:1: error: duplicate key 'a' (first defined at 1:1)",
                "rules.yaml:4:4: error: anchors and aliases are not supported in rule files",
            ]
        )
    }

    // MARK: Encoding

    /// Issue 10, item 11: the caret used to sit at 1:1 while the message named 2:5.
    @Test func invalidUTF8IsReportedAtTheBadByteWithTheCaretUnderIt() {
        let bytes = Array("a: b\nc: d".utf8) + [0xE9] + Array("f\n".utf8)
        let (root, _) = YAMLDocument.parse(bytes, file: "rules.yaml")
        #expect(root == nil)
        #expect(
            renderedDiagnostics(bytes) == """
                rules.yaml:2:5: error: the file is not valid UTF-8: byte 0xE9 at 2:5 is not part of a UTF-8 character
                c: d\u{FFFD}f
                    ^
                  hint: save the file as UTF-8
                """
        )
    }

    @Test func invalidUTF8AfterAByteOrderMarkCountsFromAfterIt() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("é: ".utf8) + [0xFF]
        #expect(
            YAMLDocument.parse(bytes, file: "rules.yaml").diagnostics.map(\.description) == [
                "rules.yaml:1:4: error: the file is not valid UTF-8: byte 0xFF at 1:4 is not part of a UTF-8 character"
            ]
        )
    }

    @Test func utf16IsNamed() {
        let bytes: [UInt8] = [0xFF, 0xFE] + Array("a: b\n".utf8).flatMap { [$0, 0] }
        #expect(
            YAMLDocument.parse(bytes, file: "rules.yaml").diagnostics.map(\.description) == [
                "rules.yaml:1:1: error: the file is not valid UTF-8: it starts with a UTF-16 byte-order mark"
            ]
        )
    }

    @Test func controlCharactersArePlacedExactly() {
        // The excerpt shows the BEL as an escape, and the caret stands under the escape.
        #expect(
            renderedDiagnostics("a: ok\nb: bé\u{7}l\n") == #"""
                rules.yaml:2:6: error: control character U+0007 is not allowed in YAML
                b: bé\x07l
                     ^
                """#
        )
    }

    @Test func theCaretStandsPastEscapesBeforeTheColumn() {
        #expect(
            renderedDiagnostics("a: ok\nb: \u{202E}x\u{7}\n") == #"""
                rules.yaml:2:6: error: control character U+0007 is not allowed in YAML
                b: \u{202E}x\x07
                            ^
                """#
        )
    }

    // MARK: libyaml syntax errors

    @Test func overIndentedLine() {
        #expect(
            renderedDiagnostics("a: b\n  c: d\n") == """
                rules.yaml:2:4: error: invalid YAML: mapping values are not allowed in this context
                  c: d
                   ^
                  hint: quote a value that contains ': ', or check the indentation of this line
                """
        )
    }

    @Test func underIndentedLineNamesTheMappingItBroke() {
        let text = "a:\n  - b\n c: d\n"
        #expect(parseYAML(text).root == nil)
        #expect(
            renderedDiagnostics(text) == """
                rules.yaml:3:2: error: invalid YAML: did not find expected key while parsing a block mapping that \
                starts at 1:1
                 c: d
                 ^
                  hint: check the indentation of this line
                """
        )
    }

    @Test func tabIndentation() {
        #expect(
            renderedDiagnostics("a:\n\tb: c\n") == """
                rules.yaml:2:1: error: invalid YAML: found character that cannot start any token while scanning for \
                the next token
                \tb: c
                ^
                  hint: indent with spaces; YAML does not allow tabs in indentation
                """
        )
    }

    @Test func reservedIndicatorAtTheStartOfAValue() {
        #expect(
            renderedDiagnostics("ssid: @home\n") == """
                rules.yaml:1:7: error: invalid YAML: found character that cannot start any token while scanning for \
                the next token
                ssid: @home
                      ^
                  hint: quote a value that starts with '@'
                """
        )
    }

    @Test func unterminatedQuotePointsAtTheEndOfTheFile() {
        #expect(
            renderedDiagnostics("a: \"abc\n") == """
                rules.yaml:2:1: error: invalid YAML: found unexpected end of stream while scanning a quoted scalar \
                that starts at 1:4

                ^
                """
        )
    }

    @Test func syntaxErrorsKeepEarlierDiagnostics() {
        let (root, diagnostics) = parseYAML("a: 1\na: 2\nb: [x\n")
        #expect(root == nil)
        #expect(
            diagnostics.map(\.description) == [
                "rules.yaml:2:1: error: duplicate key 'a' (first defined at 1:1)",
                "rules.yaml:4:1: error: invalid YAML: did not find expected ',' or ']' while parsing a flow sequence "
                    + "that starts at 3:4",
            ]
        )
    }
}
