import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesLinux

/// An observer plugin's values for built-in facts: checked and normalised like a timeline's, a bad
/// one dropped with a line naming the plugin, and one its `provides:` does not list noted once.
@Suite(.timeLimit(.minutes(1)))
struct PluginProvidesTests {
    @Test func builtInFactsAreNormalisedAndBadOnesDropped() async throws {
        let script = """
            echo '{"bssid": "02-AA-BB-00-00-02", "ssid": "Lab", "vpn.up": true}'
            echo '{"bssid": "nomac", "vpn.up": false}'
            echo '{"bssid": "nomac"}'
            exec sleep 600
            """
        let log = CapturingLogSink()
        let observer = ExecObserver(
            definition: ObserverDefinition(name: "lab", command: ["/bin/sh", "-c", script], provides: [.bssid]),
            loop: .testLoop, logger: log.logger())
        let facts = ObservedFacts(observer)
        try await facts.waitUntil("the plugin's own fact to change") { $0["vpn.up"] == .value(.bool(false)) }
        #expect(facts.store[.bssid] == .value("02:aa:bb:00:00:02"), "normalised as nl80211 writes it")
        #expect(facts.store[.ssid] == .value("Lab"), "not declared, but a valid value: taken")
        try await facts.stop()
        let spoken = log.messages.filter { $0.hasPrefix("observer plugin 'lab'") }
        #expect(
            spoken == [
                "observer plugin 'lab' reports the built-in fact 'ssid', which its provides: does not list; "
                    + "list it, so facts and doctor name the plugin",
                "observer plugin 'lab': dropped 'bssid': 'nomac' is not a MAC address, and 'bssid' is one",
            ], "each key once")
    }
}
