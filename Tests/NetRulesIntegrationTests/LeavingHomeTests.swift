import Foundation
import NetRulesTesting
import Testing

/// Scenario 2 of issue 6: the VPN comes up away from home and goes down back home.
///
/// Wi-Fi facts come from the test-driven exec observer plugin (no nl80211 on this kernel).
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct LeavingHomeTests {
    @Test func vpnScriptRunsOnceOnLeavingAndExitOnceOnComingBack() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let hook = try ActionRecord.script(in: testbed)
            let vpn = ActionRecord(path: testbed.path("vpn"))
            let home = ActionRecord(path: testbed.path("home"))
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                rules:
                  - name: vpn-away-from-home
                    when:
                      not: { ssid: [HomeNet, HomeNet-5G] }
                    on: [enter, exit]
                    for: 1s
                    do:
                      \(vpn.action(hook: hook))
                  # A barrier: proves the daemon has seen the home SSID.
                  - name: at-home
                    when: { ssid: HomeNet }
                    do:
                      \(home.action(hook: hook))

                """, to: "vpn.yaml")
            try wifi.report(ssid: "HomeNet", bssid: "00:11:22:33:44:55")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await eventually("the daemon to see the home SSID") { home.entries.count == 1 }
            #expect(vpn.entries.isEmpty, "the first known value false must fire nothing")

            try wifi.report(ssid: "CoffeeShop", bssid: "66:77:88:99:aa:bb")
            try await eventually("the VPN enter script") { vpn.entries.count == 1 }
            #expect(vpn.entries.first?.edge == "enter")
            #expect(vpn.entries.first?.ssid == "CoffeeShop")
            let firing = try #require(vpn.firings.first, "no firing JSON on the action's stdin")
            #expect(firing["rule"] as? String == "vpn-away-from-home")
            #expect(firing["edge"] as? String == "enter")
            #expect((firing["facts"] as? [String: Any])?["ssid"] as? String == "CoffeeShop")

            try wifi.report(ssid: "HomeNet", bssid: "00:11:22:33:44:55")
            try await eventually("the VPN exit script") { vpn.entries.count == 2 }
            try await eventually("the home barrier again") { home.entries.count == 2 }
            #expect(vpn.edges == ["enter", "exit"])
            #expect(vpn.entries.last?.ssid == "HomeNet")

            // Off Wi-Fi altogether (`ssid` known absent) counts as away.
            try wifi.report(ssid: nil, bssid: nil)
            try await eventually("the VPN enter script off Wi-Fi") { vpn.entries.count == 3 }
            #expect(vpn.edges == ["enter", "exit", "enter"])
            #expect(vpn.entries.last?.ssid == "-")

            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
