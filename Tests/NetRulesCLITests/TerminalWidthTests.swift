import Testing

@testable import NetRulesCLI

/// `COLUMNS` first, then the terminal, then 80.
@Suite(.timeLimit(.minutes(1)))
struct TerminalWidthTests {
    @Test(
        arguments: [
            ("100", nil, 100),
            (" 120 ", nil, 120),
            ("100", 132, 100),
            ("wide", 132, 132),
            ("0", nil, 80),
            ("-5", nil, 80),
            ("", 90, 90),
            (nil, 0, 80),
            (nil, nil, 80),
        ] as [(String?, Int?, Int)]
    )
    func resolves(columns: String?, terminalWidth: Int?, expected: Int) {
        #expect(TerminalWidth.resolve(columns: columns, terminalWidth: terminalWidth) == expected)
    }

    @Test func columnsFromTheEnvironmentWin() {
        #expect(TerminalWidth.current(environment: ["COLUMNS": "57"]) == 57)
    }

    @Test func withoutColumnsTheTerminalOrTheFallbackDecides() {
        let width = TerminalWidth.current(environment: [:])
        #expect(width == TerminalWidth.standardOutputTerminalWidth() ?? TerminalWidth.fallback)
    }
}
