import Foundation
import NetRulesTesting
import Testing

/// Scenario 1 of issue 6: arriving at the office behind a captive portal.
///
/// Wi-Fi facts come from an exec observer plugin the test drives (``WiFiPlugin``), because this
/// kernel has no nl80211; everything else (link, address, default route, the portal probe, the
/// webhook, the write) is the real daemon on a real veth network. The office is the shipped rule's
/// verified place: its intranet is a TLS server in the peer namespace whose key the test pins.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct OfficeCheckInTests {
    static let officeBSSID = "a4:2b:8c:92:47:3d"
    static let otherOfficeBSSID = "a4:2b:8c:92:47:3c"

    @Test func checksInOnceAfterThePortalClears() async throws {
        try await Testbed.run(networkUp: false) { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let portal = try PortalEndpoint(in: testbed, loggedIn: false)
            let receiver = try testbed.serve { _ in .response(status: 200, reason: "OK") }
            let hook = try ActionRecord.script(in: testbed)
            let roamed = ActionRecord(path: testbed.path("roamed"))
            let checkins = testbed.path("checkins.log")
            let intranet = try TestCertificate("intranet", commonName: "intranet.corp.example", in: testbed.directory)
            let server = try TestTLSServer(intranet, address: Testbed.peerAddress, port: 8443, in: testbed.peer)
            defer { server.stop() }
            // The shipped rule and place (rules/office-check-in.yaml) with a 1 s hold instead of 10 s,
            // a loopback-free URL in the peer namespace, and a barrier rule for roaming.
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)\(portal.connectivityYAML)
                places:
                  office:
                    when:
                      all:
                        - ssid: XF-WORLD
                        - bssid: [A4-2B-8C-92-47-3C, a42b8c92473d]
                    verify:
                      - https: \(Testbed.peerAddress):8443
                        pin: \(try intranet.opensslPin)
                rules:
                  - name: office-check-in
                    when:
                      all:
                        - place: office
                        - portal: clear
                    on: enter
                    for: 1s
                    cooldown: 8h
                    do:
                      - webhook:
                          url: "\(receiver.url("/check-in"))"
                          headers:
                            Authorization: "Bearer {{env.CHECKIN_TOKEN}}"
                          json:
                            bssid: "{{bssid}}"
                            ssid: "{{ssid}}"
                            at: "{{time}}"
                          when: online
                          retry: { attempts: 8, backoff: 1s }
                      - write:
                          path: \(checkins)
                          append: true
                          content: "{{time}} {{ssid}} {{bssid}}\\n"
                  - name: roamed
                    when: { bssid: \(Self.otherOfficeBSSID) }
                    do:
                      \(roamed.action(hook: hook))

                """, to: "office.yaml")
            try wifi.report(ssid: "XF-WORLD", bssid: Self.officeBSSID)

            let daemon = try await testbed.startDaemon(rules: [rules], environment: ["CHECKIN_TOKEN": "s3cret-token"])
            #expect(testbed.log.lowercased().contains("ready"), "no line containing 'ready' at start")

            // The network comes up behind the portal: the probe must see the redirect first.
            try testbed.bringNetworkUp()
            try await eventually("the portal probe to hit the redirect") { !portal.probes.isEmpty }
            #expect(receiver.requests.isEmpty, "checked in while the portal was still up")
            let cleared = ContinuousClock.now
            portal.clear()

            try await eventually("one check-in at the webhook receiver") { !receiver.requests.isEmpty }
            try await eventually("one line in \(checkins)") { lines(of: checkins).count == 1 }

            let request = try #require(receiver.requests.first)
            #expect(request.received > cleared, "the check-in arrived before the portal cleared")
            #expect(request.method == "POST")
            #expect(request.path == "/check-in")
            let key = try #require(request.header("Idempotency-Key"), "no Idempotency-Key header")
            #expect(UUID(uuidString: key) != nil, "Idempotency-Key \(key) is not a UUID")
            #expect(request.header("Authorization") == "Bearer s3cret-token")
            #expect(request.header("Content-Type")?.hasPrefix("application/json") == true)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            #expect(body["bssid"] as? String == Self.officeBSSID)
            #expect(body["ssid"] as? String == "XF-WORLD")
            let at = try #require(body["at"] as? String)
            #expect(at.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "at = \(at)")
            #expect(lines(of: checkins).first?.hasSuffix(" XF-WORLD \(Self.officeBSSID)") == true)

            // Roaming to another office access point keeps the rule true: no second check-in.
            // The barrier rule proves the daemon has processed the roam before we count.
            try wifi.report(ssid: "XF-WORLD", bssid: Self.otherOfficeBSSID)
            try await eventually("the roam barrier rule to fire") { roamed.entries.count == 1 }
            #expect(receiver.requests.count == 1, "check-ins: \(receiver.requests.map(\.text))")
            #expect(lines(of: checkins).count == 1)
            #expect(!testbed.log.contains("s3cret-token"), "the webhook's secret header reached the log")

            #expect(try await testbed.stop(daemon) == .exited(0))
            #expect(testbed.notify.count("STOPPING=1") == 1)
        }
    }
}

/// The non-empty lines of a text file; none when it does not exist yet.
func lines(of path: String) -> [Substring] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
}
