import NetRulesConfig
import NetRulesCore
import Testing

/// `wifi: { signal_interval }` and when `signal` is sampled: only while a rule reads it or a
/// `watch` client is connected.
@Suite(.timeLimit(.minutes(1)))
struct WiFiSettingsTests {
    static func load(_ files: [String]) -> LoadResult {
        RuleLoader().load(
            files.enumerated().map { RuleSource(file: "f\($0.offset).yaml", bytes: Array($0.element.utf8)) })
    }

    static func load(_ text: String) -> LoadResult { load([text]) }

    static let readsSignal = """
        version: 1
        rules:
          - name: weak
            when: { signal: { below: -75 } }
            do: [ { run: "true" } ]
        """

    @Test func aRuleReadingSignalAsksForSamplingAtTheDefaultInterval() {
        let result = Self.load(Self.readsSignal)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        #expect(result.ruleSet.demand.needsSignal)
        #expect(result.ruleSet.wifi.signalInterval == .seconds(5))
        #expect(result.ruleSet.signalSamplingInterval(watching: false) == .seconds(5))
        #expect(result.ruleSet.signalSamplingInterval(watching: true) == .seconds(5))
    }

    @Test(arguments: [
        "{ fact: { key: signal, above: -60 } }",
        "{ not: { any: [ { ssid: Home }, { signal: { above: -50 } } ] } }",
        "{ signal: { above: -60 }, if_unknown: false }",
    ])
    func signalReadAnywhereInAConditionCounts(condition: String) {
        let result = Self.load(
            "version: 1\nrules:\n  - name: r\n    when: \(condition)\n    do: [ { run: \"true\" } ]\n")
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        #expect(result.ruleSet.demand.needsSignal)
    }

    @Test func withoutAReaderNothingIsSampled() {
        let result = Self.load(
            """
            version: 1
            wifi: { signal_interval: 10s }
            rules:
              - name: home
                when: { ssid: Home }
                do: [ { run: "echo {{signal}}" } ]
            """)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        #expect(!result.ruleSet.demand.needsSignal)
        #expect(result.ruleSet.signalSamplingInterval(watching: false) == nil)
        // A watch client shows every fact: it is a reader too.
        #expect(result.ruleSet.signalSamplingInterval(watching: true) == .seconds(10))
        #expect(RuleSet().signalSamplingInterval(watching: false) == nil)
    }

    @Test func theIntervalIsConfigurable() {
        let result = Self.load(
            """
            version: 1
            wifi:
              signal_interval: 30s
            rules:
              - name: weak
                when: { signal: { below: -75 } }
                do: [ { run: "true" } ]
            """)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        #expect(result.ruleSet.signalSamplingInterval(watching: false) == .seconds(30))
    }

    @Test func aTooShortIntervalAnUnknownKeyAndASecondFileAreErrors() {
        let short = Self.load("version: 1\nwifi: { signal_interval: 200ms }\nrules: []\n")
        #expect(
            short.diagnostics.map(\.description) == [
                "f0.yaml:2:26: error: the signal interval must be at least 1s"
            ])
        #expect(short.diagnostics.first?.keyPath == "wifi.signal_interval")

        let typo = Self.load("version: 1\nwifi: { signal_intervall: 5s }\nrules: []\n")
        #expect(typo.hasErrors)
        #expect(typo.renderedDiagnostics().contains("signal_interval"))

        let twice = Self.load([
            "version: 1\nwifi: { signal_interval: 5s }\nrules: []\n",
            "version: 1\nwifi: { signal_interval: 9s }\nrules: []\n",
        ])
        #expect(twice.diagnostics.map(\.message) == ["'wifi' is set in more than one file (first at f0.yaml:2:1)"])
    }
}
