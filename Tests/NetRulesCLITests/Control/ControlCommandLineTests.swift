import Foundation
import NetRulesCLI
import NetRulesCore
import NetRulesDaemon
import Testing

/// `status`, `watch` and `explain` in-process: through a real control socket to a fake daemon, and
/// `explain`'s fallback to a direct snapshot when no daemon answers.
@Suite(.timeLimit(.minutes(1)))
struct ControlCommandLineTests {
    func run(_ arguments: [String]) async -> CommandTests.Outcome {
        await CommandTests.run(arguments, environment: [:])
    }

    /// A rule file in a fresh directory, and a control socket path nobody listens on.
    func ruleFile(_ yaml: String) throws -> (rules: String, noDaemon: String) {
        let directory = ControlFixture.makeTemporaryDirectory()
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: directory + "/rules.yaml"))
        return (directory + "/rules.yaml", directory + "/none.sock")
    }

    static let unknownRule = """
        version: 1
        rules:
          - name: only-unknown
            when: { fact: { key: x.y, equals: z } }
            do:
              - run: "true"
        """

    static func note(_ socket: String) -> String {
        "note: no netrules daemon answered on \(socket): no such socket; facts read directly from the system, "
            + "so the probes' facts (connectivity, portal.url, hosts.*) are unknown\n"
    }

    // MARK: - explain without a daemon

    @Test func explainWithoutADaemonEvaluatesASnapshot() async throws {
        let (rules, socket) = try ruleFile(Self.unknownRule)
        let outcome = await run(["explain", "only-unknown", "--rules", rules, "--socket", socket])
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout == """
                rule only-unknown: UNKNOWN (source: snapshot)
                unknown x.y equals z
                facts read:
                  x.y  unknown

                """)
        #expect(outcome.stderr == Self.note(socket))
    }

    @Test func explainJSONWithoutADaemonIsTheDaemonsDocument() async throws {
        let (rules, socket) = try ruleFile(Self.unknownRule)
        let outcome = await run(["explain", "only-unknown", "--json", "--rules", rules, "--socket", socket])
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout
                == #"{"version":1,"rule":"only-unknown","truth":"unknown","tree":{"condition":"x.y equals z","#
                + #""truth":"unknown","children":[]},"facts":{},"unknown":["x.y"],"state":{"confirmed":null,"#
                + #""hold":null,"cooldown":false,"once_per":[]}}"# + "\n")
    }

    @Test func explainReadsTheHostsFactsIntoTheTree() async throws {
        // The host's values are unknown to the test; the structure is not.
        let (rules, socket) = try ruleFile(
            """
            version: 1
            rules:
              - name: wired
                when: { any: [ { fact: { key: network, equals: wired } }, { fact: { key: x.y, equals: z } } ] }
                do:
                  - run: "true"
            """)
        let outcome = await run(["explain", "wired", "--rules", rules, "--socket", socket])
        #expect(outcome.code == 0)
        let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 8)
        #expect(lines[0].hasPrefix("rule wired: ") && lines[0].hasSuffix(" (source: snapshot)"))
        #expect(lines[1].hasSuffix("any"))
        #expect(lines[2].hasPrefix("  ") && lines[2].hasSuffix("network equals wired"))
        #expect(lines[3] == "  unknown x.y equals z")
        #expect(lines[4] == "facts read:")
        #expect(lines[5].hasPrefix("  network  ") && !lines[5].hasSuffix("unknown"))
        #expect(lines[6] == "  x.y      unknown")
    }

    @Test func explainOfAMisspeltRuleSuggestsTheName() async throws {
        let (rules, socket) = try ruleFile(Self.unknownRule)
        let outcome = await run(["explain", "only-unknwn", "--rules", rules, "--socket", socket])
        #expect(outcome.code == 1)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr == Self.note(socket) + "Error: no rule named 'only-unknwn'. Did you mean 'only-unknown'?\n")
    }

    @Test func explainWithAnInvalidRuleFileExits65() async throws {
        let (rules, socket) = try ruleFile("version: 1\nrules:\n  - name: broken\n    when: { ssdi: Office }\n")
        let outcome = await run(["explain", "broken", "--rules", rules, "--socket", socket])
        #expect(outcome.code == 65)
        #expect(outcome.stdout == "")
        // Which socket was tried comes first, then why the files cannot be used.
        #expect(outcome.stderr.hasPrefix(Self.note(socket) + "\(rules):3:5: error: the rule has no 'do' list\n"))
    }

    // MARK: - with a daemon

    @Test func statusShowsTheDaemonsFacts() async throws {
        let fixture = try await ControlFixture.start(ControlServerTests.fake())
        let outcome = await run(["status", "--socket", fixture.path])
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout == """
                source: daemon
                ip           unknown
                gateway      none
                gateway.mac  unknown
                gateway6     unknown
                dns          1.1.1.1, 9.9.9.9
                network      wired
                ssid         Office
                bssid        unknown
                signal       unknown
                frequency    unknown
                interface    unknown
                x.y          unknown

                """)
        #expect(outcome.stderr == "")
        try await fixture.stop()
    }

    @Test func statusJSONPrintsTheDaemonsDocument() async throws {
        let fixture = try await ControlFixture.start(ControlServerTests.fake())
        let outcome = await run(["status", "--json", "--socket", fixture.path])
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout
                == #"{"version":1,"facts":{"dns":["1.1.1.1","9.9.9.9"],"gateway":null,"network":"wired","ssid":"Office"},"unknown":["x.y"]}"#
                + "\n")
        try await fixture.stop()
    }

    @Test func explainAsksTheDaemon() async throws {
        let fixture = try await ControlFixture.start(ControlServerTests.fake())
        let outcome = await run(["explain", "office", "--socket", fixture.path])
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout == """
                rule office: TRUE (source: daemon)
                true    any
                  true    network equals wired
                  unknown x.y equals z
                pending: enter in 20 s (for:)
                facts read:
                  network  wired
                  x.y      unknown

                """)
        #expect(outcome.stderr == "")
        try await fixture.stop()
    }

    /// Two rules that lived through the same morning: one waits out its `for:`, the other fired and
    /// now drops firings by `cooldown:` and `once_per:`.
    static let waitingRules = """
        version: 1
        rules:
          - name: held
            when: { fact: { key: x.held, equals: on } }
            for: 10s
            do:
              - run: "true"
          - name: fired
            when: { fact: { key: x.fired, equals: on } }
            cooldown: 1h
            once_per: day
            do:
              - run: "true"
        """

    /// 2026-12-01 09:00:00 UTC at instant zero, in a zone one hour east of UTC; both facts turn on
    /// at 1 s, and the daemon is asked at 4 s.
    static func waitingDaemon() -> FakeDaemonQueries {
        FakeDaemonQueries(
            yaml: waitingRules,
            updates: [
                (.zero, ["x.held": .value(.string("off")), "x.fired": .value(.string("off"))]),
                (Instant(.seconds(1)), ["x.held": .value(.string("on")), "x.fired": .value(.string("on"))]),
            ],
            clock: LocalClock(origin: 1_796_115_600, utcOffset: { _ in 3_600 }), now: Instant(.seconds(4)))
    }

    @Test func explainShowsAPendingHold() async throws {
        let fixture = try await ControlFixture.start(Self.waitingDaemon())
        let outcome = await run(["explain", "held", "--socket", fixture.path])
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout == """
                rule held: TRUE (source: daemon)
                true    x.held equals on
                pending: enter in 7 s (for:)
                facts read:
                  x.held  on

                """)
        let json = await run(["explain", "held", "--json", "--socket", fixture.path])
        #expect(
            json.stdout.contains(
                #""state":{"confirmed":false,"hold":{"edge":"enter","deadline_in_seconds":7.0,"deadline":"2026-12-01T10:00:11+01:00"},"cooldown":false,"once_per":[]}"#
            ))
        try await fixture.stop()
    }

    @Test func explainShowsACooldownAndOncePer() async throws {
        let fixture = try await ControlFixture.start(Self.waitingDaemon())
        let outcome = await run(["explain", "fired", "--socket", fixture.path])
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout == """
                rule fired: TRUE (source: daemon)
                true    x.fired equals on
                cooldown: dropped until 2026-12-01 11:00 +0100 (in 1 h)
                once_per: enter dropped until 2026-12-02 00:00 +0100 (in 14 h)
                facts read:
                  x.fired  on

                """)
        let json = await run(["explain", "fired", "--json", "--socket", fixture.path])
        #expect(
            json.stdout.contains(
                #""cooldown":true,"cooldown_until":"2026-12-01T11:00:01+01:00","cooldown_in_seconds":3597.0,"once_per":[{"edge":"enter","until":"2026-12-02T00:00:00+01:00","in_seconds":50396.0}]"#
            ))
        try await fixture.stop()
    }

    @Test func explainOfAMisspeltRuleAsksTheDaemonForNames() async throws {
        let fixture = try await ControlFixture.start(ControlServerTests.fake())
        let outcome = await run(["explain", "ofice", "--socket", fixture.path])
        #expect(outcome.code == 1)
        #expect(outcome.stderr == "Error: no rule named 'ofice'. Did you mean 'office'?\n")
        try await fixture.stop()
    }

    @Test func watchPrintsTheDaemonsChangesUntilItCloses() async throws {
        let queries = ControlServerTests.fake()
        let fixture = try await ControlFixture.start(queries)
        async let outcome = run(["watch", "--socket", fixture.path])
        await queries.waitForSubscriber()
        await queries.publish(
            FactChange(key: "ssid", old: .value(.string("Office")), new: .absent, at: "2026-01-02T03:04:05Z"))
        await queries.finishStreams()
        let result = await outcome
        #expect(result.code == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines.first?.hasSuffix("  dns  unknown -> [1.1.1.1, 9.9.9.9]") == true)
        #expect(lines.last == "03:04:05  ssid  Office -> none")
        #expect(result.stderr == "Error: the netrules daemon closed the control socket \(fixture.path)\n")
        try await fixture.stop()
    }
}
