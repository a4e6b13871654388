import Foundation
import NetRulesTesting
import Testing

/// Issue 11, item 7: the two jobs people install netrules for, end to end, with Wi-Fi facts from a
/// mocked NetworkManager (this kernel has no nl80211): the built daemon with the shipped
/// `rules/office-check-in.yaml` and `rules/vpn-away-from-home.yaml`, adapted only where a test
/// must (the check-in URL points at a receiver in the peer namespace, the VPN script records its
/// runs, holds are 1 s, and the office rule's working-hours window is left out so the test does
/// not depend on the day it runs). Both places' proofs point at one TLS server in the peer
/// namespace, whose key the test pins in place of the documentation's pins.
@Suite(
    .timeLimit(.minutes(5)),
    .serialized,
    .timeLimit(.minutes(5)),
    .enabled(if: Testbed.isAvailable, Testbed.unavailableReason),
    .enabled(if: NetworkManagerMock.isAvailable, "\(NetworkManagerMock.unavailableReason)"))
struct NetworkManagerJobsTests {
    static func shipped(_ name: String) throws -> String {
        try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("rules/\(name).yaml"), encoding: .utf8)
    }

    @Test func officeCheckInAndVPNAwayFromHome() async throws {
        let mock = try NetworkManagerMock()
        defer { mock.stop() }
        try await Testbed.run { testbed in
            let portal = try PortalEndpoint(in: testbed, loggedIn: true)
            let receiver = try testbed.serve { _ in .response(status: 200, reason: "OK") }
            let hook = try ActionRecord.script(in: testbed)
            let vpn = ActionRecord(path: testbed.path("vpn"))
            let intranet = try TestCertificate("intranet", commonName: "intranet.corp.example", in: testbed.directory)
            let pin = try intranet.opensslPin
            let server = try TestTLSServer(intranet, address: Testbed.peerAddress, port: 8443, in: testbed.peer)
            defer { server.stop() }
            func proving(_ rules: String, host: String, pin shipped: String) -> String {
                rules.replacingOccurrences(of: "https: \(host)", with: "https: \(Testbed.peerAddress):8443")
                    .replacingOccurrences(of: "pin: \(shipped)", with: "pin: \(pin)")
            }
            var office = try Self.shipped("office-check-in")
            office = office.replacingOccurrences(of: "https://hr.example.com/check-in", with: receiver.url("/check-in"))
            office = office.replacingOccurrences(of: "for: 10s", with: "for: 1s")
            office = office.replacingOccurrences(
                of: "        - time: { from: \"06:00\", to: \"14:00\", days: [mon, tue, wed, thu, fri] }\n", with: "")
            // The shipped path is the system daemon's state directory: never the host's in a test.
            office = office.replacingOccurrences(
                of: "/var/lib/netrules/checkins.log", with: testbed.path("checkins.log"))
            #expect(!office.contains("path: /var/lib/netrules"), "the test would write the host's state directory")
            office = office.replacingOccurrences(of: "\nrules:\n", with: "\n" + portal.connectivityYAML + "rules:\n")
            office = proving(
                office, host: "intranet.corp.example:443", pin: "sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk=")
            var away = try Self.shipped("vpn-away-from-home")
            away = away.replacingOccurrences(of: "for: 5s", with: "for: 1s")
            away = away.replacingOccurrences(
                of: "- run: { command: /usr/local/bin/vpn-toggle, timeout: 60s }", with: vpn.action(hook: hook))
            away = proving(
                away, host: "nas.home.arpa:8443", pin: "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=")
            #expect(office.contains(pin) && away.contains(pin), "the shipped proofs were not found to replace")
            let rules = [try testbed.write(office, to: "office.yaml"), try testbed.write(away, to: "vpn.yaml")]

            try mock.control("join", "HomeNet", "11:22:33:44:55:66")
            let daemon = try await testbed.startDaemon(
                rules: rules, environment: ["DBUS_SYSTEM_BUS_ADDRESS": mock.address, "CHECKIN_TOKEN": "t0ken"])
            try await Task.sleep(for: .milliseconds(1500))
            #expect(vpn.entries.isEmpty, "the VPN started at home: \(vpn.edges)")

            // Leave home: the VPN script runs once.
            try mock.control("disconnect")
            try await eventually("the VPN to start") { vpn.edges == ["enter"] }

            // Walk past the office for less than the hold: nothing.
            try mock.control("join", "XF-WORLD", "A4-2B-8C-92-47-3C")
            try mock.control("disconnect")
            try await Task.sleep(for: .milliseconds(1500))
            #expect(receiver.requests.isEmpty, "a check-in while walking past")

            // Join the office: exactly one check-in with the right BSSID.
            try mock.control("join", "XF-WORLD", "A4-2B-8C-92-47-3C")
            try await eventually("the check-in") { receiver.requests.count == 1 }
            let body = try #require(
                try JSONSerialization.jsonObject(with: Data(receiver.requests[0].body)) as? [String: Any])
            #expect(body["bssid"] as? String == "a4:2b:8c:92:47:3c")
            #expect(body["ssid"] as? String == "XF-WORLD")
            #expect(receiver.requests[0].header("Authorization") == "Bearer t0ken")

            // Come back home: the VPN's stop runs once.
            try mock.control("disconnect")
            try mock.control("join", "HomeNet", "11:22:33:44:55:66")
            try await eventually("the VPN to stop") { vpn.edges == ["enter", "exit"] }
            try await Task.sleep(for: .milliseconds(1500))
            #expect(vpn.edges == ["enter", "exit"])
            #expect(receiver.requests.count == 1)
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
