import Foundation
import NetRulesCLI
import Testing

/// Help texts compared character for character with ``GoldenHelpTexts``.
///
/// The expected texts live in Swift literals because the test target declares no resources. To update them after an
/// intended change, run `NETRULES_RECORD=1 swift test --filter HelpGoldenTests`: each test prints its actual text to
/// stderr as a ready-to-paste `static let`, which replaces the old one in `GoldenHelpTexts.swift` (and still fails,
/// so a recording run is never mistaken for a passing one).
@Suite(.timeLimit(.minutes(1)))
struct HelpGoldenTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var commandPath: [String]
        var width: Int
        var expected: String

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "rootAt80", commandPath: ["netrules"], width: 80, expected: GoldenHelpTexts.rootAt80),
        Case(name: "rootAt40", commandPath: ["netrules"], width: 40, expected: GoldenHelpTexts.rootAt40),
        Case(
            name: "simulateAt80",
            commandPath: ["netrules", "simulate"],
            width: 80,
            expected: GoldenHelpTexts.simulateAt80
        ),
        Case(
            name: "simulateAt40",
            commandPath: ["netrules", "simulate"],
            width: 40,
            expected: GoldenHelpTexts.simulateAt40
        ),
        Case(name: "checkAt80", commandPath: ["netrules", "check"], width: 80, expected: GoldenHelpTexts.checkAt80),
        Case(name: "rulesAt80", commandPath: ["netrules", "rules"], width: 80, expected: GoldenHelpTexts.rulesAt80),
        Case(name: "rulesAt40", commandPath: ["netrules", "rules"], width: 40, expected: GoldenHelpTexts.rulesAt40),
        Case(
            name: "rulesShowAt80",
            commandPath: ["netrules", "rules", "show"],
            width: 80,
            expected: GoldenHelpTexts.rulesShowAt80
        ),
    ]

    @Test(arguments: cases)
    func helpMatchesGolden(_ golden: Case) {
        let actual = SampleCommands.parser.helpText(for: golden.commandPath, width: golden.width)
        if ProcessInfo.processInfo.environment["NETRULES_RECORD"] == "1" {
            FileHandle.standardError.write(Data(Self.literal(named: golden.name, text: actual).utf8))
            Issue.record("Recorded \(golden.name); paste it into GoldenHelpTexts.swift and run again without recording")
            return
        }
        #expect(actual == golden.expected)
    }

    /// The text as a `static let` for `GoldenHelpTexts`, indented for pasting into the enum.
    private static func literal(named name: String, text: String) -> String {
        // A multi-line literal drops the newline before its closing delimiter, hence the extra one.
        let body = (text + "\n").split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .map { $0.isEmpty ? "" : "        " + $0 }
            .joined(separator: "\n")
        return "    static let \(name) = \"\"\"\n\(body)\n        \"\"\"\n\n"
    }
}
