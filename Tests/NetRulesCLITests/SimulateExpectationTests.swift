import Foundation
import Testing

/// `simulate` with a timeline's `expect:` (issue 24, item 2): exit 1 and the failing lines, byte
/// for byte against `Golden/simulate-expect.*`. `NETRULES_RECORD=1` rewrites them; review the diff.
@Suite(.timeLimit(.minutes(1)))
struct SimulateExpectationTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    func compare(_ actual: String, to name: String) throws {
        let url = Self.golden.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["NETRULES_RECORD"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("recorded \(name); review the diff and run again without NETRULES_RECORD")
            return
        }
        #expect(actual == (try String(contentsOf: url, encoding: .utf8)))
    }

    /// Runs simulate on the golden timeline; paths in the output are made relative to the repository.
    func simulate(_ extra: String...) async -> CommandTests.Outcome {
        var r = await CommandTests.run(
            [
                "simulate", CommandTests.path("rules/vpn-away-from-home.yaml"), "-t",
                Self.golden.appendingPathComponent("simulate-expect.timeline.yaml").path,
            ] + extra)
        let prefix = CommandTests.root.path + "/"
        r.stdout = r.stdout.replacingOccurrences(of: prefix, with: "")
        r.stderr = r.stderr.replacingOccurrences(of: prefix, with: "")
        return r
    }

    @Test func anUnmetExpectationExitsOneAndNamesItsLine() async throws {
        let r = await simulate()
        #expect(r.code == 1)
        try compare("stdout:\n\(r.stdout)stderr:\n\(r.stderr)", to: "simulate-expect.text")
    }

    @Test func jsonCarriesOneLinePerExpectation() async throws {
        let r = await simulate("--json")
        #expect(r.code == 1)
        let expectations = r.stdout.split(separator: "\n").filter { $0.contains(#""event":"expectation""#) }
        #expect(expectations.count == 3)
        for line in expectations { #expect(line.hasPrefix(#"{"version":1,"#)) }
        try compare(expectations.joined(separator: "\n") + "\n", to: "simulate-expect.jsonl")
    }

    @Test func theShippedTimelinesMeetTheirExpectations() async {
        for (rules, timeline) in [
            (["rules/office-check-in.yaml"], "office-week"),
            (["rules/captive-portal.yaml", "rules/intranet-down.yaml"], "portal-and-intranet"),
        ] {
            let r = await CommandTests.run(
                ["simulate"] + rules.map(CommandTests.path) + [
                    "-t", CommandTests.path("examples/timelines/\(timeline).yaml"),
                ])
            #expect(r.code == 0, "\(timeline): \(r.stderr)")
            #expect(r.stdout.hasSuffix(" expectations met\n"), "\(timeline): \(r.stdout)")
        }
    }

    @Test func anExpectationNamingNoLoadedRuleIsARuleFileError() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nr-expect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let timeline = dir.appendingPathComponent("t.yaml")
        try "steps:\n  - at: 0s\n    facts: { ssid: A }\nexpect:\n  - { at: 0s, fires: vpn-away-from-hom }\n"
            .write(to: timeline, atomically: true, encoding: .utf8)
        let r = await CommandTests.run(
            "simulate", CommandTests.path("rules/vpn-away-from-home.yaml"), "-t", timeline.path)
        #expect(r.code == 65)
        #expect(r.stderr.hasPrefix("\(timeline.path):5:22: error: no loaded rule is named 'vpn-away-from-hom'\n"))
        #expect(r.stderr.contains("hint: did you mean 'vpn-away-from-home'?"))
    }

    /// `count: 0` (issue 37, item 4): the office week never checks in during its first hour, so
    /// that passes; it does check in between 8h and 9h, so that fails with exit 1 and the line.
    @Test func countZeroMeansTheRuleNeverFiresInTheWindow() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nr-expect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let week = try String(contentsOfFile: CommandTests.path("examples/timelines/office-week.yaml"), encoding: .utf8)
        let steps = try #require(week.range(of: "\n# What the week should do")).lowerBound
        let timeline = dir.appendingPathComponent("t.yaml")
        func run(_ expect: String) async throws -> CommandTests.Outcome {
            try (week[..<steps] + "\nexpect:\n" + expect).write(to: timeline, atomically: true, encoding: .utf8)
            return await CommandTests.run(
                "simulate", CommandTests.path("rules/office-check-in.yaml"), "-t", timeline.path)
        }
        let quiet = try await run("  - { between: [0s, 1h], fires: office-check-in, count: 0 }\n")
        #expect(quiet.code == 0, "\(quiet.stderr)")
        #expect(quiet.stdout.hasSuffix("1 expectation met\n"))

        let fired = try await run("  - { between: [8h, 9h], fires: office-check-in, count: 0 }\n")
        #expect(fired.code == 1)
        #expect(fired.stdout.hasSuffix("1 of 1 expectations not met\n"))
        let line = week[..<steps].split(separator: "\n", omittingEmptySubsequences: false).count + 2
        #expect(
            fired.stderr.hasPrefix(
                "\(timeline.path):\(line):5: error: expected 'office-check-in' never to fire between 8h and 9h, "
                    + "but it fired once\n"),
            "\(fired.stderr)")
        #expect(fired.stderr.contains("hint: 'office-check-in' enter at 8h55m10s"), "\(fired.stderr)")
    }
}
