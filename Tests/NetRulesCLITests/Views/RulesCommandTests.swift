import Foundation
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
import NetRulesSystem
import Testing

@testable import NetRulesCLI

/// `netrules rules` (issue 24, item 3): every rule with its truth, hold, drops and last firing, from
/// a fake daemon through a real control socket, and from the rule files when no daemon answers.
@Suite(.timeLimit(.minutes(1)))
struct RulesCommandTests {
    func run(_ arguments: [String], environment: [String: String] = [:]) async -> CommandTests.Outcome {
        await CommandTests.run(arguments, environment: environment)
    }

    /// The waiting daemon of `ControlCommandLineTests` (a `for:` hold, a cooldown and a `once_per`),
    /// plus a rule that is false and one that is unknown, and a history in which `fired` ran.
    static func daemon() async -> FakeDaemonQueries {
        let yaml =
            ControlCommandLineTests.waitingRules + """

                  - name: off
                    when: { fact: { key: x.held, equals: never } }
                    do:
                      - run: "true"
                  - name: nobody-knows
                    when: { fact: { key: x.unknown, equals: z } }
                    do:
                      - run: "true"
                """
        let fake = FakeDaemonQueries(
            yaml: yaml,
            updates: [
                (.zero, ["x.held": .value(.string("off")), "x.fired": .value(.string("off"))]),
                (Instant(.seconds(1)), ["x.held": .value(.string("on")), "x.fired": .value(.string("on"))]),
            ],
            clock: LocalClock(origin: 1_796_115_600, utcOffset: { _ in 3_600 }), now: Instant(.seconds(4)))
        await fake.setHistory([
            HistoryEntry(
                id: "1", time: "2026-12-01T09:00:01Z", rule: "fired", edge: .enter, facts: [], actions: []),
            // A dropped edge is not a firing: the last firing stays the one that ran.
            HistoryEntry(
                id: "2", time: "2026-12-01T09:00:03Z", rule: "fired", edge: .enter, facts: [], actions: [],
                dropped: HistoryEntry.Drop(reason: "cooldown", until: "2026-12-01T10:00:01Z")),
        ])
        return fake
    }

    @Test func textShowsEachRulesTruthHoldDropsAndLastFiring() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon())
        let outcome = await run(["rules", "--socket", fixture.path])
        #expect(outcome.code == 0, "\(outcome.stderr)")
        #expect(outcome.stderr == "")
        let json = await run(["rules", "--json", "--socket", fixture.path])
        let document = try JSONValue.parse(Array(json.stdout.dropLast().utf8))
        // The last firing is shown in this machine's zone; the golden in one an hour east of UTC.
        #expect(outcome.stdout == RulesDocument.text(document) { SystemTimeZone.utcOffset(atUnixTime: $0) })
        try FirstDayGolden.compare(RulesDocument.text(document) { _ in 3_600 }, to: "rules-daemon.text")
        try await fixture.stop()
    }

    /// Issue 37, item 8: the table was about 170 columns wide; on an 80-column terminal (`COLUMNS`,
    /// or the terminal's size) PENDING, DROPPING and LAST FIRING wrap, and a pipe still gets one
    /// line a rule.
    @Test func theTableWrapsToTheTerminalsWidth() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon())
        let narrow = await run(["rules", "--socket", fixture.path], environment: ["COLUMNS": "80"])
        #expect(narrow.code == 0, "\(narrow.stderr)")
        let lines = narrow.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(narrow.stdout)")
        let json = await run(["rules", "--json", "--socket", fixture.path])
        let document = try JSONValue.parse(Array(json.stdout.dropLast().utf8))
        try FirstDayGolden.compare(RulesDocument.text(document, width: 80) { _ in 3_600 }, to: "rules-daemon-80.text")
        let piped = await run(["rules", "--socket", fixture.path])
        #expect(piped.stdout.split(separator: "\n").count == 6, "one line a rule without a width: \(piped.stdout)")
        try await fixture.stop()
    }

    @Test func jsonIsTheDaemonsDocument() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon())
        let outcome = await run(["rules", "--json", "--socket", fixture.path])
        #expect(outcome.code == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.hasPrefix(#"{"version":1,"source":"daemon","rules":[{"name":"held","truth":"true","#))
        try FirstDayGolden.compare(outcome.stdout, to: "rules-daemon.json")
        try await fixture.stop()
    }

    @Test func withoutADaemonItReadsTheFilesAndSaysEveryTruthIsUnknown() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        let file = directory + "/rules.yaml"
        try Data(ControlCommandLineTests.waitingRules.utf8).write(to: URL(fileURLWithPath: file))
        let socket = directory + "/none.sock"
        let text = await run(["rules", "--rules", file, "--socket", socket])
        #expect(text.code == 0, "\(text.stderr)")
        #expect(
            text.stderr
                == "note: no netrules daemon answered on \(socket): no such socket; rules read from \(file), "
                + "so every truth is unknown\n")
        try FirstDayGolden.compare(text.stdout, to: "rules-files.text")
        let json = await run(["rules", "--json", "--rules", file, "--socket", socket])
        #expect(
            json.stdout == #"{"version":1,"source":"files","rules":[{"name":"held","truth":"unknown","state":null,"#
                + #""last_firing":null},{"name":"fired","truth":"unknown","state":null,"last_firing":null}]}"# + "\n")
    }

    @Test func aStateDirectoryWithoutADaemonIsAnErrorNamingItsSocket() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        let outcome = await run(["rules", "--state-dir", directory], environment: ["HOME": directory])
        #expect(outcome.code == 1)
        #expect(
            outcome.stderr
                == "Error: no netrules daemon answered on \(directory)/control.sock: no such socket; start it, "
                + "or give --rules FILE to list them from the files\n")
    }
}
