import NetRulesConfig
import NetRulesCore
import NetRulesTesting
import Testing

/// Issue 12, items 2 and 4: MAC and address facts compare as such, and near misses are errors.
@Suite(.timeLimit(.minutes(1)))
struct TypedFactTests {
    private func rule(_ when: String) throws -> Rule {
        let result = RuleLoaderTests.load(
            "version: 1\nrules:\n  - name: r\n    when: \(when)\n    do: [ { run: x } ]\n")
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        return try #require(result.ruleSet.rules.first)
    }

    private func errors(_ when: String, hosts: String = "") -> [Diagnostic] {
        RuleLoaderTests.load("version: 1\n\(hosts)rules:\n  - name: r\n    when: \(when)\n    do: [ { run: x } ]\n")
            .diagnostics.filter { $0.severity == .error }
    }

    @Test(arguments: [
        "11-22-33-44-55-66", "11:22:33:44:55:66", "112233445566", "11 22 33 44 55 66", "1:22:33:44:55:66",
    ])
    func aMACFactMatchesAnySpellingOfItsValue(spelling: String) throws {
        let mac = spelling == "1:22:33:44:55:66" ? "01:22:33:44:55:66" : "11:22:33:44:55:66"
        let condition = try rule("{ fact: { key: gateway.mac, equals: \"\(spelling.uppercased())\" } }").condition
        #expect(condition.evaluate(.with([.gatewayMAC: .text(Array(mac.utf8))])) == .true)
        #expect(condition.evaluate(.with([.gatewayMAC: "aa:bb:cc:dd:ee:ff"])) == .false)
    }

    @Test func addressFactsCompareAsAddressesAndSupportInSubnet() throws {
        let dns = try rule("{ fact: { key: dns, equals: \"2001:DB8:0:0::53\" } }").condition
        #expect(dns.evaluate(.with([.dns: .list(["192.0.2.1", "2001:db8::53"])])) == .true)
        let ip = try rule("{ fact: { key: ip, in_subnet: [192.0.2.0/24, 198.51.100.0/24] } }").condition
        #expect(ip.evaluate(.with([.ip: .list(["203.0.113.9/24", "198.51.100.7/24"])])) == .true)
        #expect(ip.evaluate(.with([.ip: .list(["203.0.113.9/24"])])) == .false)
    }

    @Test func theGatewayConditionTakesAMAC() throws {
        let condition = try rule("{ gateway: { mac: [AA-BB-CC-DD-EE-FF, 112233445566] } }").condition
        #expect(condition.readKeys == [.gatewayMAC])
        #expect(condition.evaluate(.with([.gatewayMAC: "11:22:33:44:55:66"])) == .true)
        #expect(condition.evaluate(.with([.gatewayMAC: "11:22:33:44:55:67"])) == .false)
    }

    @Test(arguments: [
        ("{ fact: { key: bssid, equals: nomac } }", "is not a MAC address"),
        ("{ fact: { key: gateway, in: [192.0.2.1, router] } }", "is not an IP address"),
        ("{ fact: { key: ssid, in_subnet: 192.0.2.0/24 } }", "tests address facts"),
        ("{ gateway: { mac: nomac } }", "is not a MAC address"),
    ])
    func aValueThatCannotBeTheFactIsAnError(when: String, message: String) {
        let found = errors(when)
        #expect(found.count == 1 && found[0].message.contains(message), "\(found)")
    }

    @Test func aHostNameNearADefinedHostIsAnError() {
        let hosts = "hosts:\n  intranet: 192.0.2.10\n"
        let found = errors("{ unreachable: intranett }", hosts: hosts)
        #expect(found.count == 1)
        #expect(found.first?.hint?.contains("did you mean 'intranet'?") == true)
        #expect(errors("{ unreachable: intranet }", hosts: hosts).isEmpty)
        #expect(errors("{ unreachable: 192.0.2.11 }", hosts: hosts).isEmpty)
    }

    @Test(arguments: [
        ("{ ssid: A, for: 10s }", "'for' belongs to the rule, not to 'when'"),
        ("{ ping: intranet }", "did you mean 'reachable'?"),
    ])
    func hintsComeFromTheRightNamespace(when: String, expected: String) {
        let found = errors(when)
        #expect(found.contains { $0.message.contains(expected) || $0.hint?.contains(expected) == true }, "\(found)")
    }

    @Test func aMissingDoIsNamed() {
        let text = "version: 1\nrules:\n  - name: x\n    when: { ssid: A }\n    cooldown: 8h\n      - run: foo\n"
        let found = RuleLoaderTests.load(text).diagnostics
        #expect(found.first?.hint?.contains("'do:' missing") == true, "\(found)")
    }
}

/// Timelines go through the observers' normalisation and checks (issue 12, items 2 and 4).
@Suite(.timeLimit(.minutes(1)))
struct TimelineCheckTests {
    private func parse(_ text: String) -> (Timeline?, [Diagnostic]) {
        Timeline.parse(Array(text.utf8), file: "t.yaml")
    }

    @Test func valuesAreNormalisedAsTheDaemonWouldReportThem() throws {
        let (timeline, diagnostics) = parse(
            "- at: 0s\n  facts: { bssid: A4-2B-8C-92-47-3C, gateway: \"2001:DB8::1\" }\n")
        #expect(diagnostics.isEmpty)
        let update = try #require(timeline?.steps.first?.update)
        #expect(update[.bssid] == .value(.string("a4:2b:8c:92:47:3c")))
        #expect(update[.gateway] == .value(.string("2001:db8::1")))
    }

    @Test(arguments: [
        ("connectivity: bogus", "is not a value 'connectivity' can have"),
        ("bssid: nomac", "is not a MAC address"),
        ("hosts.intranet: up", "it is one of: reachable, unreachable"),
        ("signal: strong", "is not a number"),
    ])
    func aValueThatCannotBeTheFactIsAnError(facts: String, message: String) {
        let (timeline, diagnostics) = parse("- at: 0s\n  facts: { \(facts) }\n")
        #expect(timeline == nil)
        #expect(
            diagnostics.contains { $0.message.contains(message) || $0.hint?.contains(message) == true },
            "\(diagnostics)")
    }
}

/// `wifi: { source: … }` (issue 11, item 4).
@Suite(.timeLimit(.minutes(1)))
struct WiFiSourceSettingTests {
    @Test(arguments: WiFiSettings.Source.allCases)
    func everySourceLoads(source: WiFiSettings.Source) throws {
        let result = RuleLoaderTests.load("version: 1\nwifi: { source: \(source.rawValue) }\nrules: []\n")
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        #expect(result.ruleSet.wifi.source == source)
    }

    @Test func anUnknownSourceIsAnError() {
        let result = RuleLoaderTests.load("version: 1\nwifi: { source: iwd }\nrules: []\n")
        #expect(result.hasErrors)
        #expect(RuleLoaderTests.load("version: 1\nrules: []\n").ruleSet.wifi.source == .auto)
    }
}
