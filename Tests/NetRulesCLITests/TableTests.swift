import Testing

@testable import NetRulesCLI

/// `Table`: aligned columns, and, given a terminal's width, wrapping columns that narrow to fit it
/// (issue 37, item 8: `rules` was about 130 columns wide on an 80-column terminal).
@Suite(.timeLimit(.minutes(1)))
struct TableTests {
    let rows = [
        ["RULE", "TRUTH", "DROPPING", "LAST FIRING"],
        ["office-check-in", "true", "once_per enter until 2026-12-05 00:00 +0100 (in 14 h)", "none"],
        ["vpn", "false", "none", "2026-12-04 09:02:13 +0100 exit"],
    ]

    @Test func withoutAWidthEveryRowIsOneLine() {
        let lines = Table.render(rows, wrapping: [2])
        #expect(lines.count == 3)
        #expect(lines[1] == "office-check-in  true   once_per enter until 2026-12-05 00:00 +0100 (in 14 h)  none")
    }

    @Test func aNarrowTerminalWrapsTheWrappingColumnAtSpaces() {
        let lines = Table.render(rows, width: 80, wrapping: [2, 3])
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines)")
        #expect(
            lines == [
                "RULE             TRUTH  DROPPING                  LAST FIRING",
                "office-check-in  true   once_per enter until      none",
                "                        2026-12-05 00:00 +0100",
                "                        (in 14 h)",
                "vpn              false  none                      2026-12-04 09:02:13 +0100 exit",
            ], "\(lines.joined(separator: "\n"))")
    }

    @Test func aWordLongerThanTheColumnBreaksAtTheWidth() {
        #expect(Table.wrap("abcdefghij klm", to: 4) == ["abcd", "efgh", "ij", "klm"])
        #expect(Table.wrap("short", to: 10) == ["short"])
    }

    @Test func aTableThatCannotNarrowEnoughRunsOver() {
        let lines = Table.render(rows, width: 20, wrapping: [2], minimumWrapped: 16)
        #expect(lines.first?.hasPrefix("RULE             TRUTH  DROPPING") == true)
        #expect(lines.count > 3, "the DROPPING cell still wraps at its minimum width")
    }
}
