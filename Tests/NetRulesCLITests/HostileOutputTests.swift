import Foundation
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
import NetRulesTesting
import Testing

/// A hostile value through every command that shows one: C0, C1 and bidi controls from an SSID,
/// a connection name, a plugin's fact, an action's output, a portal's `Location` and a rule file
/// reach the text of `status`, `watch`, `history`, `explain`, `facts`, `portal`, `simulate`,
/// `doctor` and `check` only as visible escapes; `--json` keeps them exact.
@Suite(.timeLimit(.minutes(2)))
struct HostileOutputTests {
    /// ESC-based CSI and OSC 8, the same in C1 form (UTF-8), bidi overrides and isolates, the line
    /// separators, CR, BS, NUL, DEL and a newline that would forge a line.
    static let hostile =
        "Cafe\u{1B}[2J\u{1B}]0;owned\u{7}\u{1B}]8;;file:///etc/passwd\u{1B}\\link\u{9B}2J\u{9D}0;t\u{9C}"
        + "\u{202E}gnp.exe\u{2066}\u{2069}\u{200F}\u{2028}\r\u{8}\u{0}\u{7F}\nforged: yes"

    /// Every scalar of `text` that a terminal would obey, other than the line breaks the command
    /// itself writes.
    static func raw(_ text: String) -> [String] {
        text.unicodeScalars.filter { $0 != "\n" && TerminalText.needsEscaping($0) }
            .map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    static func expectClean(
        _ outcome: CommandTests.Outcome, _ command: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(raw(outcome.stdout) == [], "\(command): stdout", sourceLocation: sourceLocation)
        #expect(raw(outcome.stderr) == [], "\(command): stderr", sourceLocation: sourceLocation)
        #expect(
            !outcome.stdout.split(separator: "\n").contains { $0.hasPrefix("forged") }, "\(command): a forged line",
            sourceLocation: sourceLocation)
    }

    static let rules = """
        version: 1
        rules:
          - name: hostile
            when: { any: [ { ssid: "\\e[2J\\u202Eevil" }, { fact: { key: connection, equals: x } } ] }
            do:
              - run: "true"
        """

    func run(_ arguments: [String]) async -> CommandTests.Outcome {
        await CommandTests.run(arguments, environment: [:])
    }

    // MARK: - From the daemon

    @Test func statusExplainFactsHistoryAndWatchShowDaemonValuesEscaped() async throws {
        let queries = FakeDaemonQueries(
            yaml: Self.rules,
            facts: [
                .ssid: .value(.string(Self.hostile)), FactKey("connection"): .value(.string(Self.hostile)),
                FactKey("interfaces.wl\u{1B}[2J"): .value(.string("up")),
            ])
        var history = HistoryFixtures.entries
        history.append(
            HistoryEntry(
                id: "hostile-1", time: "2026-12-01T09:20:00Z", rule: "hostile", edge: .enter,
                facts: [.init(key: "ssid", value: .string(Self.hostile))],
                actions: [
                    .init(
                        type: "run", rendered: "notify-send " + Self.hostile,
                        outcome: HistoryFixtures.outcome(
                            "failed", exit: 1, ms: 3, output: "stderr: " + Self.hostile, error: Self.hostile))
                ]))
        await queries.setHistory(history)
        let fixture = try await ControlFixture.start(queries)
        defer { Task { try? await fixture.stop() } }
        let socket = ["--socket", fixture.path]

        for command in [["status"], ["explain", "hostile"], ["facts"], ["history"]] {
            let outcome = await run(command + socket)
            #expect(outcome.code == 0, "\(command): \(outcome.stderr)")
            Self.expectClean(outcome, command.joined(separator: " "))
        }
        let status = await run(["status"] + socket)
        #expect(status.stdout.contains(#"  Cafe\x1b[2J\x1b]0;owned\x07"#))
        #expect(status.stdout.contains(#"\u{202E}gnp.exe\u{2066}\u{2069}\u{200F}\u{2028}\r\x08\x00\x7f\nforged: yes"#))

        // --json stays exact: the value parses back to the very same text.
        for command in [["status", "--json"], ["explain", "hostile", "--json"]] {
            let outcome = await run(command + socket)
            let document = try JSONValue.parse(Array(outcome.stdout.utf8))
            let facts = try #require(document.member("facts"), "\(command)")
            #expect(facts.member("ssid") == .string(Self.hostile), "\(command)")
        }
        let historyJSON = await run(["history", "--json", "--rule", "hostile"] + socket)
        let entry = try JSONValue.parse(Array(historyJSON.stdout.utf8))
        #expect(entry.member("facts")?.member("ssid") == .string(Self.hostile))

        async let watching = run(["watch"] + socket)
        await queries.waitForSubscriber()
        await queries.publish(
            FactChange(
                key: .ssid, old: .value(.string(Self.hostile)), new: .value(.string("\u{9B}31m")),
                at: "2026-01-02T03:04:05Z"))
        await queries.finishStreams()
        Self.expectClean(await watching, "watch")
    }

    // MARK: - From the network

    @Test func portalShowsAHostileLocationEscapedAndRefusesItAsPortalURL() async throws {
        let location = "http://192.0.2.1/\u{1B}]8;;file:///etc/passwd\u{7}\u{1B}[2J\r\u{8}login\u{9B}\u{202E}"
        let server = try TestHTTPServer { _ in .response(status: 302, headers: [("Location", location)]) }
        defer { server.stop() }
        let text = await run(["portal", "--url", server.url("/hotspot-detect.html"), "--timeout", "2"])
        Self.expectClean(text, "portal")
        #expect(text.stdout.hasPrefix("connectivity: portal\n"), "\(text.stdout)")
        #expect(!text.stdout.contains("portal.url:"), "a refused Location is no portal.url")
        #expect(text.stdout.contains("Location refused: it contains the control character 0x1b"))

        let json = await run(["portal", "--url", server.url("/hotspot-detect.html"), "--timeout", "2", "--json"])
        let document = try JSONValue.parse(Array(json.stdout.utf8))
        #expect(document.member("portal.url") == .null)
        #expect(
            document.member("decided_by")?.member("location_refused")
                == .string("it contains the control character 0x1b"))
    }

    @Test func portalPercentEncodesWhatIsNotRFC3986AndResolvesARelativeLocation() async throws {
        let server = try TestHTTPServer { _ in
            .response(status: 302, headers: [("Location", "/login?next=\u{9B}2J \u{202E}\"")])
        }
        defer { server.stop() }
        let json = await run(["portal", "--url", server.url("/hotspot-detect.html"), "--timeout", "2", "--json"])
        let document = try JSONValue.parse(Array(json.stdout.utf8))
        #expect(document.member("portal.url") == .string(server.url("/login?next=%C2%9B2J%20%E2%80%AE%22")))
    }

    // MARK: - From a timeline, a rule file and the system

    @Test func simulateShowsRenderedCommandsAndWebhookBodiesEscaped() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
        version: 1
        rules:
          - name: joined
            when: { ssid: { matches: "." } }
            do:
              - run: notify-send "Joined {{ssid}}"
              - webhook: { url: "http://192.0.2.1/in", json: { ssid: "{{ssid}}" }, headers: { X-SSID: "{{ssid}}" } }
              - write: { path: /tmp/nr-never-written, content: "{{ssid}}" }
        """.write(toFile: directory + "/rules.yaml", atomically: true, encoding: .utf8)
        // YAML's double-quoted escapes spell every control: \e, \x9B, \u202E, \r, \b, \0, \n.
        try """
        - at: 0s
          facts: { ssid: "Cafe\\e[2J\\e]0;owned\\a\\x9B2J\\x9D0;t\\x9C\\u202Egnp\\u2066\\u2028\\r\\b\\0\\x7F\\nforged: yes" }
        """.write(toFile: directory + "/timeline.yaml", atomically: true, encoding: .utf8)
        let outcome = await run(["simulate", directory + "/rules.yaml", "--timeline", directory + "/timeline.yaml"])
        #expect(outcome.code == 0, "\(outcome.stderr)")
        Self.expectClean(outcome, "simulate")
        #expect(outcome.stdout.contains(#"run: notify-send "Joined Cafe\x1b[2J\x1b]0;owned\x07\u{9B}2J"#))

        let json = await run(
            ["simulate", directory + "/rules.yaml", "--timeline", directory + "/timeline.yaml", "--json"])
        let firing = try JSONValue.parse(Array(json.stdout.split(separator: "\n")[0].utf8))
        guard case .array(let rendered)? = firing.member("rendered"),
            case .string(let command)? = rendered.first?
                .member("run")?.member("command")
        else {
            Issue.record("no rendered run command in \(json.stdout)")
            return
        }
        #expect(command.contains("\u{1B}[2J") && command.contains("\u{202E}"), "--json keeps the command exact")
    }

    @Test func checkQuotesAHostileKeyAndSourceLineEscaped() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A key spelled with escapes, and a line holding a raw U+202E (which YAML allows).
        try """
        version: 1
        rules:
          - name: x
            when: { "ssid\\e[2J": a, fact: { key: "\u{202E}k", equals: "\u{202E}" } }
            do:
              - run: "true"
        """.write(toFile: directory + "/bad.yaml", atomically: true, encoding: .utf8)
        let outcome = await run(["check", directory + "/bad.yaml"])
        #expect(outcome.code == 65)
        Self.expectClean(outcome, "check")
        #expect(outcome.stderr.contains(#"ssid\x1b[2J"#), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(#"\u{202E}"#), "\(outcome.stderr)")
    }

    @Test func doctorShowsAHostilePluginPathEscaped() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
        version: 1
        observers:
          - name: odd
            command: ["/nonexistent/\\e]0;owned\\a\\u202Eplugin"]
        rules:
          - name: x
            when: { fact: { key: odd.value, equals: a } }
            do:
              - run: "true"
        """.write(toFile: directory + "/rules.yaml", atomically: true, encoding: .utf8)
        let outcome = await run(["doctor", directory + "/rules.yaml", "--socket", directory + "/none.sock"])
        Self.expectClean(outcome, "doctor")
        #expect(
            outcome.stdout.contains(#"\x1b]0;owned\x07\u{202E}plugin"#) || outcome.stderr.contains(#"\x1b]0;owned"#),
            "\(outcome.stdout)\(outcome.stderr)")
    }
}
