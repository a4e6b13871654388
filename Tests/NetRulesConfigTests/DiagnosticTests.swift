import NetRulesConfig
import NetRulesCore
import Testing

/// The one-line form, the rendering with source line and caret, and the order of diagnostics.
@Suite(.timeLimit(.minutes(1)))
struct DiagnosticTests {
    private static let file = "rules/office.yaml"

    private static func at(_ line: Int, _ column: Int) -> SourceMark {
        SourceMark(line: line, column: column)
    }

    @Test func descriptionIsOneCompilerStyleLine() {
        let error = Diagnostic("unknown key 'cooldwn'", file: Self.file, mark: Self.at(12, 7), hint: "did you mean?")
        #expect(error.description == "rules/office.yaml:12:7: error: unknown key 'cooldwn'")
        #expect(error.severity == .error)
        let warning = Diagnostic(.warning, "'every' is deprecated", file: Self.file, mark: Self.at(3, 5))
        #expect(warning.description == "rules/office.yaml:3:5: warning: 'every' is deprecated")
    }

    @Test func renderingShowsTheLineTheCaretAndTheHint() {
        let source = SourceText(file: Self.file, bytes: Array("rules:\n  - id: a\n    cooldwn: 5m\n".utf8))
        let diagnostic = Diagnostic(
            "unknown key 'cooldwn'",
            file: Self.file,
            mark: Self.at(3, 5),
            keyPath: "rules[0].cooldwn",
            hint: "did you mean 'cooldown'?"
        )
        #expect(
            diagnostic.rendered(source: source) == """
                rules/office.yaml:3:5: error: unknown key 'cooldwn'
                    cooldwn: 5m
                    ^
                  hint: did you mean 'cooldown'?
                """
        )
    }

    /// The caret line copies the tabs before the column, so the caret lines up at any tab width.
    @Test func caretUnderATabIndentedLineCopiesTheTabs() {
        let source = SourceText(file: Self.file, bytes: Array("rules:\n\t\tssid:\tOffice\n".utf8))
        let diagnostic = Diagnostic("expected a list, found a string", file: Self.file, mark: Self.at(2, 9))
        #expect(
            diagnostic.rendered(source: source) == """
                rules/office.yaml:2:9: error: expected a list, found a string
                \t\tssid:\tOffice
                \t\t     \t^
                """
        )
    }

    @Test func caretCountsUnicodeScalars() {
        let source = SourceText(file: Self.file, bytes: Array("名前: x\n".utf8))
        let diagnostic = Diagnostic("bad", file: Self.file, mark: Self.at(1, 5))
        #expect(diagnostic.rendered(source: source) == "rules/office.yaml:1:5: error: bad\n名前: x\n    ^")
    }

    @Test func caretPastTheEndOfTheLinePadsWithSpaces() {
        let source = SourceText(file: Self.file, bytes: Array("ab\n".utf8))
        let diagnostic = Diagnostic("bad", file: Self.file, mark: Self.at(1, 5))
        #expect(diagnostic.rendered(source: source) == "rules/office.yaml:1:5: error: bad\nab\n    ^")
    }

    @Test(arguments: [
        ("rules/office.yaml", 9),  // no such line
        ("rules/home.yaml", 1),  // another file's text
    ])
    func withoutTheLineOnlyTheMessageAndHintRemain(sourceFile: String, line: Int) {
        let source = SourceText(file: sourceFile, bytes: Array("a: b\n".utf8))
        let diagnostic = Diagnostic("bad", file: Self.file, mark: Self.at(line, 1), hint: "fix it")
        #expect(diagnostic.rendered(source: source) == "rules/office.yaml:\(line):1: error: bad\n  hint: fix it")
        #expect(diagnostic.rendered(source: nil) == "rules/office.yaml:\(line):1: error: bad\n  hint: fix it")
    }

    @Test func noSourceAndNoHintIsTheOneLineForm() {
        let diagnostic = Diagnostic("bad", file: Self.file, mark: Self.at(2, 3))
        #expect(diagnostic.rendered(source: nil) == diagnostic.description)
    }

    @Test func sortedByFileLineColumnThenMessageAndStable() {
        let unsorted = [
            Diagnostic("z", file: "b.yaml", mark: Self.at(1, 1)),
            Diagnostic("m", file: "a.yaml", mark: Self.at(10, 1)),
            Diagnostic("m", file: "a.yaml", mark: Self.at(2, 8)),
            Diagnostic("tie", file: "a.yaml", mark: Self.at(2, 3), hint: "first"),
            Diagnostic("b", file: "a.yaml", mark: Self.at(2, 3)),
            Diagnostic(.warning, "tie", file: "a.yaml", mark: Self.at(2, 3), hint: "second"),
            Diagnostic("a", file: "a.yaml", mark: Self.at(2, 3)),
        ]
        let sorted = unsorted.sortedByPosition()
        #expect(
            sorted.map { "\($0.description) \($0.hint ?? "-")" } == [
                "a.yaml:2:3: error: a -",
                "a.yaml:2:3: error: b -",
                "a.yaml:2:3: error: tie first",
                "a.yaml:2:3: warning: tie second",
                "a.yaml:2:8: error: m -",
                "a.yaml:10:1: error: m -",
                "b.yaml:1:1: error: z -",
            ]
        )
        #expect([Diagnostic]().sortedByPosition() == [])
    }
}
