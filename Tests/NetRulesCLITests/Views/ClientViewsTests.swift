import Foundation
import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
import NetRulesSystem
import Testing

@testable import NetRulesCLI

/// Issue 24's client-side rough edges (items 7, 11, 17, 18, 22): which socket a client tried,
/// `clock.local` in `explain`, one spelling for one thing, did-you-mean and `facts` listing every
/// key the loaded rules can read.
@Suite(.timeLimit(.minutes(1)))
struct ClientViewsTests {
    func run(_ arguments: [String], environment: [String: String]? = nil) async -> CommandTests.Outcome {
        await CommandTests.run(arguments, environment: environment ?? ["PATH": "/usr/bin:/bin"])
    }

    // MARK: - 7. every client command names the socket it tried

    /// What each command prints on stderr with `--state-dir DIR` and no daemon there.
    static let noDaemonCases: [(arguments: [String], stderr: String, code: Int32)] = [
        (["explain", "office"], "Error: NO; start it, or give --rules FILE to explain from the files\n", 1),
        (["rules"], "Error: NO; start it, or give --rules FILE to list them from the files\n", 1),
        (["history"], "note: NO; no history file at DIR/history.jsonl\n", 0),
        (["reload"], "Error: NO; start it, or name its --socket or --state-dir\n", 1),
        (["status", "--json"], "note: NO; facts read directly from the system, so the probes' facts", 0),
        (["facts", "--json"], "note: NO; facts read directly from the system, so the probes' facts", 0),
    ]

    @Test(arguments: 0..<noDaemonCases.count)
    func withAStateDirectoryAndNoDaemonTheCommandNamesTheSocket(index: Int) async {
        let (arguments, template, code) = Self.noDaemonCases[index]
        let directory = ControlFixture.makeTemporaryDirectory()
        let outcome = await run(arguments + ["--state-dir", directory], environment: ["HOME": directory])
        let expected = template.replacing(
            "NO", with: "no netrules daemon answered on \(directory)/control.sock: no such socket"
        ).replacing("DIR", with: directory)
        #expect(outcome.code == code, "\(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix(expected), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("/etc/netrules") && !outcome.stderr.contains(".config/netrules"))
    }

    @Test func aSocketFileNobodyListensOnIsSaidSo() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        try Data().write(to: URL(fileURLWithPath: directory + "/control.sock"))
        let outcome = await run(["reload", "--socket", directory + "/control.sock"])
        #expect(outcome.code == 1)
        #expect(
            outcome.stderr
                == "Error: no netrules daemon answered on \(directory)/control.sock: nothing listening on it; "
                + "start it, or name its --socket or --state-dir\n")
    }

    // MARK: - 11. clock.local as a local time

    @Test func explainShowsClockLocalAsALocalTimeWithItsWeekday() async throws {
        // 2026-12-01 (a Tuesday) 06:00:00 UTC at instant zero, in a zone an hour east of UTC.
        let fake = FakeDaemonQueries(
            yaml: """
                version: 1
                rules:
                  - name: mornings
                    when: { all: [ { time: { from: "07:00", to: "11:00" } }, { fact: { key: x.y, equals: z } } ] }
                    do:
                      - run: "true"
                """,
            updates: [(Instant(.seconds(10)), ["x.y": .value(.string("z"))])],
            clock: LocalClock(origin: 1_796_104_800, utcOffset: { _ in 3_600 }), now: Instant(.seconds(10)))
        let fixture = try await ControlFixture.start(fake)
        let text = await run(["explain", "mornings", "--socket", fixture.path])
        #expect(text.code == 0, "\(text.stderr)")
        try FirstDayGolden.compare(text.stdout, to: "explain-clock-local.text")
        let json = await run(["explain", "mornings", "--json", "--socket", fixture.path])
        #expect(
            json.stdout.contains(#""facts":{"clock.local":"2026-12-01T07:00:10+01:00","x.y":"z"}"#), "\(json.stdout)")
        try await fixture.stop()
    }

    // MARK: - 17. one spelling for one thing

    @Test func explainAndHistoryShowDropTimesInOneLayout() async throws {
        let fixture = try await ControlFixture.start(ControlCommandLineTests.waitingDaemon())
        let outcome = await run(["explain", "fired", "--socket", fixture.path])
        #expect(
            outcome.stdout.contains("cooldown: dropped until 2026-12-01 11:00 +0100 (in 1 h)\n"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("once_per: enter dropped until 2026-12-02 00:00 +0100 (in 14 h)\n"))
        let entry = HistoryEntry(
            id: "1", time: "2026-12-01T09:41:00Z", rule: "fired", edge: .enter, facts: [], actions: [],
            dropped: HistoryEntry.Drop(reason: "once_per", until: "2026-12-01T23:00:00Z"))
        #expect(HistoryText.render([entry]) { _ in 3_600 }.contains("dropped: once_per (until 2026-12-02 00:00 +0100)"))
        try await fixture.stop()
    }

    @Test func nullIsNoneInText() {
        #expect(JSONValue.stateText(.null) == "none")
        #expect(JSONValue.null.plainText == "none")
        #expect(FactState.absent.description == "none")
        let line = WatchDocument.text(
            ControlDocuments.change(FactChange(key: .ssid, old: .value(.string("Office")), new: .absent, at: "t")))
        #expect(line.hasSuffix("Office -> none\n"), "\(line)")
    }

    @Test func statusHasOneLayoutWithAndWithoutADaemon() throws {
        let daemon = StatusDocument(
            answer: try JSONValue.parse(
                Array(
                    #"{"version":1,"facts":{"gateway":"192.0.2.1","interfaces.eth0":"up","ip":["192.0.2.7"],"ssid":null,"connectivity":"online"},"unknown":["hosts.loop"]}"#
                        .utf8)))
        try FirstDayGolden.compare(daemon.text, to: "status-daemon.text")
        let lines = daemon.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "source: daemon")
        // The order a direct reading uses: interfaces, then the common facts, then the rest.
        #expect(lines.firstIndex { $0.hasPrefix("interfaces.eth0") }! < lines.firstIndex { $0.hasPrefix("ip ") }!)
        #expect(lines.firstIndex { $0.hasPrefix("ssid") }! < lines.firstIndex { $0.hasPrefix("connectivity") }!)
        #expect(lines.contains { $0.hasPrefix("hosts.loop") && $0.hasSuffix("unknown") })
        // StatusDocumentTests shows a direct reading in this layout, headed `source: the system, …`.
    }

    @Test func reloadJSONHasTheDiagnosticsAsAnArrayLikeCheck() async throws {
        let fake = ControlServerTests.fake()
        let diagnostic = Diagnostic(
            .error, "unknown key 'sid'", file: "/etc/netrules/a.yaml",
            mark: SourceMark(line: 4, column: 5), keyPath: "rules[1].when.sid", hint: "did you mean 'ssid'?")
        await fake.setReloadOutcome(
            ReloadOutcome(
                reloaded: false, rules: 1, rendered: "/etc/netrules/a.yaml:4:5: error: unknown key 'sid'\n",
                diagnostics: [diagnostic]))
        let fixture = try await ControlFixture.start(fake)
        let outcome = await run(["reload", "--json", "--socket", fixture.path])
        #expect(outcome.code == 65)
        try FirstDayGolden.compare(outcome.stdout, to: "reload-refused.json")
        #expect(
            outcome.stdout.contains(
                #""diagnostics":[{"severity":"error","file":"/etc/netrules/a.yaml","line":4,"column":5,"message":"unknown key 'sid'","keyPath":"rules[1].when.sid","hint":"did you mean 'ssid'?"}]"#
            ))
        let text = await run(["reload", "--socket", fixture.path])
        #expect(text.stderr == "/etc/netrules/a.yaml:4:5: error: unknown key 'sid'\n")
        try await fixture.stop()
    }

    @Test func theOlderSpellingOfSocketStillWorks() async {
        let outcome = await run(["reload", "--control-socket", "/tmp/netrules-none/control.sock"])
        #expect(outcome.stderr.hasPrefix("Error: no netrules daemon answered on /tmp/netrules-none/control.sock:"))
    }

    // MARK: - 18. did-you-mean and weeks

    @Test func historyOfAMisspeltRuleSuggestsTheName() async throws {
        let fake = ControlServerTests.fake()
        await fake.setHistory(HistoryFixtures.entries)
        let fixture = try await ControlFixture.start(fake)
        let outcome = await run(["history", "--rule", "ofice-check-in", "--socket", fixture.path])
        #expect(outcome.code == 1)
        #expect(
            outcome.stderr
                == "Error: no rule named 'ofice-check-in' is loaded or in the history. Did you mean 'office-check-in'?\n"
        )
        // A loaded rule without firings is no error: it prints nothing.
        let quiet = await run(["history", "--rule", "office", "--socket", fixture.path])
        #expect(quiet.code == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stderr)")
        try await fixture.stop()
    }

    @Test func historyWithoutADaemonSuggestsFromTheHistoryFile() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        let lines = HistoryFixtures.entries.map { $0.document.compact + "\n" }.joined()
        try Data(lines.utf8).write(to: URL(fileURLWithPath: directory + "/" + FiringHistory.fileName))
        let outcome = await run(
            ["history", "--rule", "vpn-awya", "--state-dir", directory], environment: ["HOME": directory])
        #expect(outcome.code == 1)
        #expect(outcome.stderr.hasSuffix("Did you mean 'vpn-away'?\n"), "\(outcome.stderr)")
    }

    @Test func explainOfAMissingRuleSuggestsTheName() async throws {
        let fixture = try await ControlFixture.start(ControlServerTests.fake())
        let outcome = await run(["explain", "offise", "--socket", fixture.path])
        #expect(outcome.code == 1)
        #expect(outcome.stderr == "Error: no rule named 'offise'. Did you mean 'office'?\n")
        try await fixture.stop()
    }

    @Test func historySinceTakesWeeks() throws {
        let parser = ArgumentParser(root: NetRulesCommandLine.root, version: NetRulesCommandLine.version)
        guard case .run(let parsed) = try parser.parse(["history", "--since", "1w"]) else {
            Issue.record("history --since 1w did not parse")
            return
        }
        let query = try HistoryCommand.query(parsed).get()
        #expect(query.since == .seconds(604_800))
    }

    // MARK: - 22. facts lists every key the loaded rules can read

    @Test func factsFromADaemonListsEveryKeyItsRulesRead() async throws {
        let fake = FakeDaemonQueries(
            yaml: """
                version: 1
                hosts:
                  loop: { address: 127.0.0.1 }
                places:
                  office: { when: { ssid: Office } }
                rules:
                  - name: loop-up
                    when: { all: [ { reachable: loop }, { place: office } ] }
                    do:
                      - run: "true"
                """,
            facts: ["interfaces.lo": .value(.string("up"))])
        let fixture = try await ControlFixture.start(fake)
        // An empty rule directory: the keys can come only from the daemon.
        let home = ControlFixture.makeTemporaryDirectory()
        let outcome = await run(["facts", "--json", "--socket", fixture.path], environment: ["HOME": home])
        #expect(outcome.code == 0, "\(outcome.stderr)")
        let document = try JSONValue.parse(Array(outcome.stdout.dropLast().utf8))
        guard case .array(let facts)? = document.member("facts") else {
            Issue.record("no facts array: \(outcome.stdout)")
            return
        }
        func row(_ key: String) -> JSONValue? { facts.first { $0.member("key")?.stringValue == key } }
        #expect(row("hosts.loop")?.member("state")?.stringValue == "unknown")
        #expect(row("hosts.loop")?.member("source")?.stringValue == "host probes")
        #expect(row("places.office")?.member("state")?.stringValue == "unknown")
        #expect(row("interfaces.lo")?.member("state")?.stringValue == "value")
        let text = await run(["facts", "--socket", fixture.path], environment: ["HOME": home])
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("hosts.loop") }, "\(text.stdout)")
        try await fixture.stop()
    }
}
