import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesConfig

/// What `check` refuses or warns about in actions so that no network value runs as code, picks a
/// webhook's host, or makes a write land somewhere it should not; each at the exact line:column.
@Suite(.timeLimit(.minutes(1)))
struct ActionSafetyCheckTests {
    private func diagnostics(_ action: String) -> [String] {
        let text = """
            version: 1
            rules:
              - name: r
                when: { ssid: Office }
                do:
                  - \(action)
            """
        return RuleLoaderTests.load(text).diagnostics.map {
            "\($0.mark) \($0.severity == .error ? "error" : "warning"): \($0.message)"
        }
    }

    @Test func theIssuesQuotedTemplatesNowRunByteExactAndCheckStaysQuiet() {
        #expect(diagnostics(#"run: echo "captive portal at {{portal.url}}" >> /var/log/portal.log"#).isEmpty)
        #expect(diagnostics(#"run: notify-send 'Joined {{ssid}}'"#).isEmpty)
    }

    @Test func aRefusedPlaceholderIsAnErrorAtItsOwnColumn() throws {
        let found = diagnostics(#"run: echo "$(cat {{portal.url}})""#)
        try #require(found.count == 1)
        #expect(found[0].hasPrefix("6:26 error: '{{portal.url}}' cannot be made safe here"))
    }

    @Test func aRefusedPlaceholderInABlockScalarPointsAtItsLineAndColumn() throws {
        let text = """
            version: 1
            rules:
              - name: r
                when: { ssid: Office }
                do:
                  - run: |
                      echo start
                      eval "notify {{ssid}}"
            """
        let found = RuleLoaderTests.load(text).diagnostics
        try #require(found.count == 1)
        #expect(found[0].mark == SourceMark(line: 8, column: 24))
        #expect(found[0].severity == .error)
    }

    @Test func aValueThatCouldBeAnOptionIsAWarningAndTheRuleLoads() throws {
        let result = RuleLoaderTests.load(
            """
            version: 1
            rules:
              - name: r
                when: { ssid: Office }
                do:
                  - run: "sort {{ssid}} < /dev/null"
            """)
        #expect(result.ruleSet.rules.count == 1)
        try #require(result.diagnostics.count == 1)
        #expect(result.diagnostics[0].severity == .warning)
        #expect(result.diagnostics[0].mark == SourceMark(line: 6, column: 20))
        #expect(result.diagnostics[0].hint?.contains("--") == true)
    }

    @Test(arguments: [
        #"webhook: { url: "http://{{ssid}}:8765/checkin" }"#,
        #"webhook: { url: "http://good.example.com{{ssid}}/" }"#,
        #"webhook: { url: "http://good.example.com:{{ssid}}/" }"#,
        #"webhook: { url: "https://{{env.HOST}}/x" }"#,
        #"webhook: { url: "{{portal.url}}" }"#,
        #"webhook: { url: "https://hr.example.com:99999/x" }"#,
        #"webhook: { url: "https:///x" }"#,
    ])
    func aWebhookHostFromATemplateIsRefused(action: String) {
        let found = diagnostics(action)
        #expect(found.count == 1 && found[0].contains("error"), "\(found)")
    }

    @Test(arguments: [
        #"webhook: { url: "https://hr.example.com/check-in/{{ssid}}?b={{bssid}}#{{rule}}" }"#,
        #"webhook: { url: "http://[2001:db8::1]:8080/x?t={{env.TOKEN}}" }"#,
        #"webhook: { url: "http://127.0.0.1:8765?ssid={{ssid}}" }"#,
    ])
    func templatesInThePathQueryAndFragmentAreAccepted(action: String) {
        #expect(diagnostics(action).isEmpty)
    }

    @Test func theURLErrorPointsAtTheFirstPlaceholder() {
        #expect(
            diagnostics(#"webhook: { url: "http://good.example.com{{ssid}}/" }"#).first?.hasPrefix("6:49 error") == true
        )
    }

    @Test(arguments: [
        ("write: { path: /tmp/../etc/x, content: x }", "'..'"),
        ("write: { path: /dev/null, content: x }", "/dev"),
        ("write: { path: /proc/sys/net/ipv4/ip_forward, content: x }", "/proc"),
        ("write: { path: /sys/class/x, content: x }", "/sys"),
        ("write: { path: /tmp/x, content: x, mode: \"4777\" }", "setuid"),
        ("write: { path: /tmp/x, content: x, mode: \"2755\" }", "setgid"),
        ("write: { path: /tmp/x, content: x, mode: \"0666\" }", "world-write"),
        ("write: { path: /tmp/x, content: x, timeout: forever }", "duration"),
    ])
    func dangerousWritesAreRefused(action: String, mentioning word: String) {
        let found = diagnostics(action)
        #expect(found.count == 1 && found[0].contains("error") && found[0].contains(word), "\(found)")
    }

    @Test func aSafeWriteWithATimeoutLoads() {
        #expect(diagnostics(#"write: { path: /tmp/x, content: "{{ssid}}", mode: "0640", timeout: 5s }"#).isEmpty)
    }
}

/// Numbers that used to crash `check` (SIGILL) are positioned errors (issue 10, item 1).
@Suite(.timeLimit(.minutes(1)))
struct OverflowingNumberTests {
    @Test(arguments: [
        "for: 9999999999999999d", "for: 170141183460469231731s", "cooldown: 1000000000000000d1000000000000000d",
        "cooldown: 999999d",
    ])
    func anOverflowingDurationIsAnErrorNotACrash(line: String) throws {
        let result = RuleLoaderTests.load(
            """
            version: 1
            rules:
              - name: r
                when: { ssid: Office }
                \(line)
                do: [ { run: "true" } ]
            """)
        let diagnostic = try #require(result.diagnostics.first)
        #expect(result.diagnostics.count == 1)
        #expect(diagnostic.mark.line == 5)
        #expect(diagnostic.message.contains("longer than netrules accepts"), "\(diagnostic.message)")
        #expect(result.ruleSet.rules.isEmpty)
    }
}

/// Diagnostics stay linear (issue 10, item 8): a capped number per file, each excerpt a window.
@Suite(.timeLimit(.minutes(1)))
struct DiagnosticVolumeTests {
    @Test func tenThousandAliasesOnOneLineGiveFiftyShortDiagnostics() {
        let text =
            "version: 1\nrules:\n  - name: r\n    when: { ssid: ["
            + Array(repeating: "*x", count: 10_000)
            .joined(separator: ", ") + "] }\n    do: [ { run: \"true\" } ]\n"
        let start = ContinuousClock.now
        let result = RuleLoaderTests.load(text)
        let rendered = result.renderedDiagnostics()
        #expect(ContinuousClock.now - start < .seconds(10), "quadratic again?")
        #expect(result.diagnostics.count == LoadResult.maximumDiagnosticsPerFile)
        #expect(result.errorCount >= 10_000)
        #expect(rendered.utf8.count < 64 * 1024, "\(rendered.utf8.count) bytes of diagnostics")
        #expect(rendered.contains("test.yaml: and "))
    }

    @Test func aLongLineIsShownAsAWindowWithTheCaretInPlace() {
        let line = String(repeating: "a", count: 500) + "X" + String(repeating: "b", count: 500)
        let (excerpt, column) = Diagnostic.window(of: line, around: 501)
        #expect(excerpt.unicodeScalars.count <= Diagnostic.excerptWidth + 2)
        #expect(Array(excerpt.unicodeScalars)[column - 1] == "X")
        #expect(excerpt.hasPrefix("…") && excerpt.hasSuffix("…"))
        #expect(Diagnostic.window(of: "short", around: 3) == ("short", 3))
    }

    @Test func manyBrokenRulesLoadInLinearTime() {
        func text(_ count: Int) -> String {
            "version: 1\nrules:\n"
                + (0..<count).map { "  - name: r\($0)\n    when: { sid: x }\n    do: [ { run: 'true' } ]\n" }.joined()
        }
        let start = ContinuousClock.now
        let result = RuleLoaderTests.load(text(10_000))
        #expect(result.errorCount == 10_000)
        // Quadratic copying took 35 s for 20,000 rules; linear work takes well under this guard.
        #expect(ContinuousClock.now - start < .seconds(15))
    }
}

/// `if_unknown:` on any condition node (issue 12, item 3).
@Suite(.timeLimit(.minutes(1)))
struct IfUnknownTests {
    static let awayFromHome = """
        version: 1
        rules:
          - name: away
            when:
              not:
                any:
                  - { ssid: HomeNet, if_unknown: false }
                  - { ssid: HomeNet-5G, if_unknown: false }
            do: [ { run: "true" } ]
        """

    @Test func anUnknownSSIDCountsAsNotHomeSoTheRuleCanFire() throws {
        let result = RuleLoaderTests.load(Self.awayFromHome)
        #expect(result.diagnostics.isEmpty, "\(result.renderedDiagnostics())")
        let rule = try #require(result.ruleSet.rules.first)
        #expect(rule.condition.evaluate(FactStore()) == .true)
        #expect(rule.condition.evaluate(.with([.ssid: "HomeNet"])) == .false)
        #expect(rule.condition.evaluate(.with([.ssid: "Cafe"])) == .true)
    }

    @Test func withoutItUnknownStaysUnknown() throws {
        let text = Self.awayFromHome.replacing(", if_unknown: false", with: "")
        let rule = try #require(RuleLoaderTests.load(text).ruleSet.rules.first)
        #expect(rule.condition.evaluate(FactStore()) == .unknown)
    }

    @Test func explainSaysWhenItApplied() throws {
        let result = RuleLoaderTests.load(Self.awayFromHome)
        var engine = Engine(rules: result.ruleSet.rules)
        _ = engine.apply(FactUpdate(), at: .zero)
        let text = try #require(engine.explain(rule: "away")).text
        #expect(text.contains("(unknown, counted as false by if_unknown)"), "\(text)")
    }

    @Test(arguments: ["{ if_unknown: true }", "{ ssid: A, if_unknown: maybe }"])
    func misuseIsAnError(condition: String) {
        let result = RuleLoaderTests.load(
            "version: 1\nrules:\n  - name: r\n    when: \(condition)\n    do: [ { run: x } ]\n")
        #expect(result.hasErrors)
    }
}
