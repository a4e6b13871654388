import Foundation
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
import NetRulesSystem
import Testing

@testable import NetRulesCLI

/// A rule paused from Home Assistant (`mqtt: commands: true`), as `rules`, `status` and
/// `explain` show it, from a fake daemon through a real control socket (issue 33, item 8).
@Suite(.timeLimit(.minutes(1)))
struct PausedRuleViewsTests {
    static let pause = PausedRule(rule: "fired", by: "MQTT", since: "2026-12-01T10:00:02+01:00")

    static func daemon() async -> FakeDaemonQueries {
        let fake = await RulesCommandTests.daemon()
        await fake.setPaused([Self.pause])
        return fake
    }

    func run(_ arguments: [String]) async -> CommandTests.Outcome {
        await CommandTests.run(arguments, environment: [:])
    }

    @Test func rulesShowsThePauseInTheDroppingColumnAndItsJSON() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon())
        let json = await run(["rules", "--json", "--socket", fixture.path])
        #expect(json.code == 0, "\(json.stderr)")
        #expect(json.stdout.contains(#""paused":{"by":"MQTT","since":"2026-12-01T10:00:02+01:00"}"#), "\(json.stdout)")
        try FirstDayGolden.compare(json.stdout, to: "rules-paused.json")
        let document = try JSONValue.parse(Array(json.stdout.dropLast().utf8))
        let text = RulesDocument.text(document) { _ in 3_600 }
        #expect(text.contains("paused from MQTT at 2026-12-01 10:00 +0100, cooldown until"), "\(text)")
        try FirstDayGolden.compare(text, to: "rules-paused.text")
        try await fixture.stop()
    }

    @Test func explainSaysPausedFromMQTTAtWhen() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon())
        let text = await run(["explain", "fired", "--socket", fixture.path])
        #expect(text.code == 0, "\(text.stderr)")
        #expect(
            text.stdout.contains(
                "\npaused from MQTT at 2026-12-01 10:00 +0100: its firings are not run until it is resumed\n"),
            "\(text.stdout)")
        try FirstDayGolden.compare(text.stdout, to: "explain-paused.text")
        let json = await run(["explain", "fired", "--json", "--socket", fixture.path])
        #expect(json.stdout.contains(#""paused":{"by":"MQTT","since":"2026-12-01T10:00:02+01:00"}"#), "\(json.stdout)")
        // A rule that is not paused has no `paused` at all.
        let held = await run(["explain", "held", "--json", "--socket", fixture.path])
        #expect(!held.stdout.contains("paused"), "\(held.stdout)")
        try await fixture.stop()
    }

    @Test func statusHasALineForEachPausedRule() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon())
        let text = await run(["status", "--socket", fixture.path])
        #expect(text.code == 0, "\(text.stderr)")
        #expect(text.stdout.hasSuffix("paused: fired (from MQTT at 2026-12-01 10:00 +0100)\n"), "\(text.stdout)")
        try FirstDayGolden.compare(text.stdout, to: "status-paused.text")
        let json = await run(["status", "--json", "--socket", fixture.path])
        #expect(
            json.stdout.hasSuffix(
                #","paused":[{"rule":"fired","by":"MQTT","since":"2026-12-01T10:00:02+01:00"}]}"# + "\n"),
            "\(json.stdout)")
        try await fixture.stop()
    }

    /// Without a pause, the documents are as they were: no `paused` anywhere.
    @Test func withoutAPauseNothingSaysPaused() async throws {
        let fixture = try await ControlFixture.start(await RulesCommandTests.daemon())
        for command in [["rules", "--json"], ["status", "--json"], ["explain", "fired", "--json"], ["status"]] {
            let outcome = await run(command + ["--socket", fixture.path])
            #expect(outcome.code == 0)
            #expect(!outcome.stdout.contains("paused"), "\(command): \(outcome.stdout)")
        }
        try await fixture.stop()
    }
}
