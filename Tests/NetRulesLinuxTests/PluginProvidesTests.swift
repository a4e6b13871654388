import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesLinux

/// An observer plugin's values for built-in facts: taken only when its `provides:` lists them,
/// checked and normalised like a timeline's, and a bad one dropped with a line naming the plugin.
@Suite(.timeLimit(.minutes(1)))
struct PluginProvidesTests {
    @Test func builtInFactsAreNormalisedWhenDeclaredAndDroppedOtherwise() async throws {
        let script = """
            echo '{"bssid": "02-AA-BB-00-00-02", "ssid": "Lab", "vpn.up": true}'
            echo '{"bssid": "nomac", "vpn.up": false}'
            echo '{"bssid": "nomac"}'
            exec sleep 600
            """
        let log = CapturingLogSink()
        let observer = ExecObserver(
            definition: ObserverDefinition(name: "lab", command: ["/bin/sh", "-c", script], provides: [.bssid]),
            logger: log.logger())
        let facts = ObservedFacts(observer)
        try await facts.waitUntil("the plugin's own fact to change") { $0["vpn.up"] == .value(.bool(false)) }
        #expect(facts.store[.bssid] == .value("02:aa:bb:00:00:02"), "normalised as nl80211 writes it")
        #expect(facts.store[.ssid] == .unknown, "not declared: not taken")
        try await facts.stop()
        let dropped = log.messages.filter { $0.hasPrefix("observer plugin 'lab': dropped") }
        #expect(
            dropped == [
                "observer plugin 'lab': dropped 'ssid': a built-in fact its provides: does not list",
                "observer plugin 'lab': dropped 'bssid': 'nomac' is not a MAC address, and 'bssid' is one",
            ], "each refused key once")
    }
}
