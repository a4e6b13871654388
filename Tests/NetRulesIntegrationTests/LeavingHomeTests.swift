import Foundation
import NetRulesTesting
import Testing

/// Scenario 2 of issue 6: the VPN comes up away from home and goes down back home.
///
/// Wi-Fi facts come from the test-driven exec observer plugin (no nl80211 on this kernel). Home
/// is the shipped rule's verified place (rules/vpn-away-from-home.yaml): its NAS is a TLS server
/// in the peer namespace whose key the test pins; a home whose NAS does not answer is only
/// claimed, and the VPN stays up there.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct LeavingHomeTests {
    @Test func vpnScriptRunsOnceOnLeavingAndExitOnceOnComingBack() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let hook = try ActionRecord.script(in: testbed)
            let vpn = ActionRecord(path: testbed.path("vpn"))
            let home = ActionRecord(path: testbed.path("home"))
            let nas = try TestCertificate("nas", commonName: "nas.home.arpa", in: testbed.directory)
            var server = try TestTLSServer(nas, address: Testbed.peerAddress, port: 8443, in: testbed.peer)
            defer { server.stop() }
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                places:
                  home:
                    when: { ssid: [HomeNet, HomeNet-5G] }
                    verify:
                      - https: \(Testbed.peerAddress):8443
                        pin: \(try nas.opensslPin)
                rules:
                  - name: vpn-away-from-home
                    when:
                      not: { place: home }
                    on: [enter, exit]
                    for: 1s
                    do:
                      \(vpn.action(hook: hook))
                  # A barrier: proves the daemon has verified the home.
                  - name: at-home
                    when: { place: home }
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

            // A network called HomeNet whose NAS does not answer: a claimed home is away, the VPN stays up.
            server.stop()
            try wifi.report(ssid: "HomeNet", bssid: "00:11:22:33:44:55")
            try await eventually("the failed proof to be reported") {
                (PlacesTests.facts(testbed)["places.home.reason"] as? String ?? "").contains("no connection")
            }
            #expect(PlacesTests.facts(testbed)["places.home"] as? String == "claimed")
            try await Task.sleep(for: .milliseconds(1500))
            #expect(vpn.edges == ["enter", "exit", "enter"])
            #expect(home.entries.count == 2)
            server = try TestTLSServer(nas, address: Testbed.peerAddress, port: 8443, in: testbed.peer)

            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
