import Foundation
import NetRulesConfig
import NetRulesCore
import Testing

/// Golden tests of everything `check` prints for broken files (STYLE §19).
///
/// Each `Golden/NAME.yaml` is loaded as `NAME.yaml`; the rendered diagnostics must equal
/// `Golden/NAME.expected` byte for byte. `NETRULES_RECORD=1 swift test` rewrites the expected
/// files (then review the diff) and fails, so a recording run never passes by accident.
@Suite(.timeLimit(.minutes(1)))
struct GoldenDiagnosticTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static var cases: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    @Test func everyCaseIsPresent() {
        #expect(Self.cases.count >= 6, "golden cases missing from \(Self.directory.path)")
    }

    @Test(arguments: GoldenDiagnosticTests.cases)
    func renderedDiagnosticsMatch(name: String) throws {
        let input = Self.directory.appendingPathComponent("\(name).yaml")
        let expectedURL = Self.directory.appendingPathComponent("\(name).expected")
        let bytes = Array(try Data(contentsOf: input))
        let loader = RuleLoader(findActionPlugin: { _, _ in nil })
        let result = loader.load([RuleSource(file: "\(name).yaml", bytes: bytes)])
        let actual = result.renderedDiagnostics()
        #expect(result.hasErrors)
        if ProcessInfo.processInfo.environment["NETRULES_RECORD"] == "1" {
            try actual.write(to: expectedURL, atomically: true, encoding: .utf8)
            Issue.record(
                "recorded \(expectedURL.lastPathComponent); review the diff and run again without NETRULES_RECORD")
            return
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        #expect(actual == expected)
    }
}
