import Foundation
import NetRulesActions
import Testing

@testable import NetRulesCLI

/// `netrules run`'s outbox options: read into `OutboxLimits`, and a bad value refused as a usage
/// error before the daemon starts (issue 21, row 6).
@Suite(.timeLimit(.minutes(1)))
struct RunOutboxOptionTests {
    static func limits(_ arguments: [String]) throws -> OutboxLimits {
        let parser = ArgumentParser(root: NetRulesCommandLine.root, version: NetRulesCommandLine.version)
        guard case .run(let parsed) = try parser.parse(["run"] + arguments) else {
            throw UsageError(message: "not a run outcome", commandPath: [])
        }
        return try RunCommand.outboxLimits(parsed).get()
    }

    @Test func withoutOptionsTheLimitsAreTheDefaults() throws {
        #expect(try Self.limits([]) == OutboxLimits.default)
        #expect(
            OutboxLimits.default
                == OutboxLimits(
                    pendingPerRule: 100, pending: 1_000, pendingBytes: 16 << 20, failed: 1_000,
                    failedAge: .seconds(30 * 86_400)))
    }

    @Test func eachOptionSetsItsLimit() throws {
        let limits = try Self.limits([
            "--outbox-limit", "5000", "--outbox-rule-limit=20", "--outbox-bytes", "64MiB", "--outbox-failed-limit", "0",
            "--outbox-failed-age", "12h",
        ])
        #expect(
            limits
                == OutboxLimits(
                    pendingPerRule: 20, pending: 5_000, pendingBytes: 64 << 20, failed: 0, failedAge: .seconds(43_200)))
    }

    @Test(arguments: [
        (["--outbox-limit", "0"], "--outbox-limit takes a whole number from 1 to 1000000, not '0'"),
        (["--outbox-limit", "many"], "--outbox-limit takes a whole number from 1 to 1000000, not 'many'"),
        (
            ["--outbox-rule-limit", "1000001"],
            "--outbox-rule-limit takes a whole number from 1 to 1000000, not '1000001'"
        ),
        (["--outbox-failed-limit", "-1"], "--outbox-failed-limit takes a whole number from 0 to 1000000, not '-1'"),
        (
            ["--outbox-bytes", "16MB"],
            "--outbox-bytes takes a size from 1 KiB to 1 GiB such as 16MiB or 512K, not '16MB'"
        ),
        (
            ["--outbox-bytes", "512"],
            "--outbox-bytes takes a size from 1 KiB to 1 GiB such as 16MiB or 512K, not '512'"
        ),
        (["--outbox-bytes", "2G"], "--outbox-bytes takes a size from 1 KiB to 1 GiB such as 16MiB or 512K, not '2G'"),
        (["--outbox-failed-age", "30"], "--outbox-failed-age takes a duration such as 30d or 12h, not '30'"),
        (["--outbox-failed-age", "0s"], "--outbox-failed-age takes a duration such as 30d or 12h, not '0s'"),
    ])
    func aBadValueIsAUsageErrorBeforeAnythingStarts(arguments: [String], message: String) async {
        let directory = ControlFixture.makeTemporaryDirectory()
        let outcome = await CommandTests.run(
            ["run", directory + "/none.yaml", "--state-dir", directory + "/state"] + arguments)
        #expect(outcome.code == 64)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.hasPrefix("Error: \(message)\nUsage: netrules run "))
        #expect(outcome.stderr.hasSuffix("\n  See 'netrules run --help' for more information.\n"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory)) == [], "it created nothing")
    }

    @Test func theHelpShowsEachOptionWithItsDefault() async {
        // Wide enough that no description wraps (a long option's description starts on the next line).
        let outcome = await CommandTests.run(["run", "--help"], environment: ["COLUMNS": "400"])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        for (option, value) in [
            ("--outbox-limit <n>", "1000"), ("--outbox-rule-limit <n>", "100"), ("--outbox-bytes <size>", "16MiB"),
            ("--outbox-failed-limit <n>", "1000"), ("--outbox-failed-age <duration>", "30d"),
        ] {
            guard let start = lines.firstIndex(where: { $0.hasPrefix("  " + option) }) else {
                Issue.record("\(option) is not in the help")
                continue
            }
            let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("  -") } ?? lines.endIndex
            let text = lines[start..<end].joined(separator: " ")
            #expect(text.hasSuffix("(default: \(value))"), "\(text)")
        }
    }
}
