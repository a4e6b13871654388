import Foundation
import NetRulesCore
import NetRulesHTTP
import Testing

@testable import NetRulesCLI

/// Issue 37, item 8: what `history --rule`, `explain` and `pin` say to a name they cannot use, and
/// that docs/rules.md shows no `write:` to `~/…`, which the system daemon would put in root's home.
/// Each wording is asserted byte for byte.
@Suite(.timeLimit(.minutes(1)))
struct SuggestionWordingTests {
    static let rules = """
        version: 1
        rules:
          - { name: office-check-in, when: { ssid: Office }, do: [ { run: "true" } ] }
          - { name: home-wifi, when: { ssid: Home }, do: [ { run: "true" } ] }
        """

    func run(_ arguments: [String]) async -> CommandTests.Outcome {
        await CommandTests.run(arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test func historySuggestsANameThatStartsLikeTheTypo() async throws {
        let fake = FakeDaemonQueries(yaml: Self.rules, facts: [:], now: Instant(.seconds(10)))
        await fake.setHistory(HistoryFixtures.entries)
        let fixture = try await ControlFixture.start(fake)
        let outcome = await run(["history", "--rule", "ofice", "--socket", fixture.path])
        #expect(outcome.code == 1)
        #expect(
            outcome.stderr
                == "Error: no rule named 'ofice' is loaded or in the history. Did you mean 'office-check-in'?\n")
        try await fixture.stop()
    }

    @Test func explainSuggestsANameThatStartsLikeTheTypo() async throws {
        let fixture = try await ControlFixture.start(
            FakeDaemonQueries(yaml: Self.rules, facts: [:], now: Instant(.seconds(10))))
        let outcome = await run(["explain", "ofice", "--socket", fixture.path])
        #expect(outcome.code == 1)
        #expect(outcome.stderr == "Error: no rule named 'ofice'. Did you mean 'office-check-in'?\n")
        let home = await run(["explain", "hom", "--socket", fixture.path])
        #expect(home.stderr == "Error: no rule named 'hom'. Did you mean 'home-wifi'?\n")
        let none = await run(["explain", "xyz", "--socket", fixture.path])
        #expect(none.stderr == "Error: no rule named 'xyz'\n")
        try await fixture.stop()
    }

    @Test func prefixesNeedThreeCharactersAndFewEdits() {
        let names = ["office-check-in", "office-check-out", "vpn-away"]
        #expect(RuleNameSuggestion.closest(to: "ofice", among: names) == "office-check-in")
        #expect(RuleNameSuggestion.closest(to: "office-check", among: names) == "office-check-in")
        #expect(RuleNameSuggestion.closest(to: "vpn", among: names) == "vpn-away")
        #expect(RuleNameSuggestion.closest(to: "of", among: names) == nil)
        #expect(RuleNameSuggestion.closest(to: "oxxce", among: names) == nil)
    }

    @Test func pinSaysANameDoesNotResolveInPlainWords() {
        let error = HTTPError(
            code: .couldNotResolve, message: "Could not resolve host: nas.home.arpa", curlCode: 6)
        #expect(
            PinCommand.failure("nas.home.arpa:8443", host: "nas.home.arpa", error)
                == "nas.home.arpa:8443: the name 'nas.home.arpa' does not resolve: this system's DNS has no address "
                + "for it; check the spelling, or give the server's address")
        let other = HTTPError(code: .couldNotConnect, message: "Connection refused", curlCode: 7)
        #expect(
            PinCommand.failure("127.0.0.1:1", host: "127.0.0.1", other)
                == "127.0.0.1:1: could not connect: Connection refused")
    }

    @Test func theRuleReferenceWritesNoExampleToHome() throws {
        let text = try String(contentsOfFile: CommandTests.path("docs/rules.md"), encoding: .utf8)
        let homeWrites = text.split(separator: "\n").filter { $0.contains("write:") && $0.contains("path: ~") }
        #expect(homeWrites.isEmpty, "\(homeWrites)")
    }
}
