import NetRulesActions
import Testing

@testable import NetRulesCLI

/// `netrules run --webhook-concurrency`: how many webhook requests may be under way at once to one
/// host (issue 36); a bad value is a usage error before the daemon starts.
@Suite(.timeLimit(.minutes(1)))
struct RunWebhookConcurrencyOptionTests {
    static func concurrency(_ arguments: [String]) throws -> Int {
        let parser = ArgumentParser(root: NetRulesCommandLine.root, version: NetRulesCommandLine.version)
        guard case .run(let parsed) = try parser.parse(["run"] + arguments) else {
            throw UsageError(message: "not a run outcome", commandPath: [])
        }
        return try RunCommand.webhookConcurrency(parsed)
    }

    @Test func withoutTheOptionItIsEightPerHost() throws {
        #expect(try Self.concurrency([]) == 8)
        #expect(ActionRunner.webhookConcurrencyTotal == 64)
    }

    @Test func theOptionSetsIt() throws {
        #expect(try Self.concurrency(["--webhook-concurrency", "1"]) == 1)
        #expect(try Self.concurrency(["--webhook-concurrency=64"]) == 64)
    }

    @Test(arguments: ["0", "65", "many", "-1"])
    func aBadValueIsAUsageErrorBeforeAnythingStarts(value: String) async {
        let directory = ControlFixture.makeTemporaryDirectory()
        let outcome = await CommandTests.run(
            ["run", directory + "/none.yaml", "--state-dir", directory + "/state", "--webhook-concurrency", value])
        #expect(outcome.code == 64)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr.hasPrefix(
                "Error: --webhook-concurrency takes a whole number from 1 to 64, not '\(value)'\nUsage: netrules run "))
    }
}
