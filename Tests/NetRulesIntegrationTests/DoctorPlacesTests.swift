import Foundation
import NetRulesTesting
import Testing

/// `netrules doctor RULES` lists each place with whether its proofs can run here (issue 22):
/// the built binary in the testbed's host namespace, where the only names it could resolve are
/// literal addresses and /etc/hosts (the namespace's DNS server is out of reach by design).
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct DoctorPlacesTests {
    static let pin = "sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk="

    static func doctor(_ testbed: Testbed, _ rules: String, json: Bool) throws -> String {
        // Wide enough that doctor does not wrap a line (it wraps to COLUMNS, else 80).
        try TestNamespace.shell(
            [
                "COLUMNS=1000", "ip", "netns", "exec", testbed.host.name, DaemonProcess.executable, "doctor", rules,
                "--state-dir",
                testbed.path("state"), "--socket", testbed.path("none.sock"),
            ] + (json ? ["--json"] : []))
    }

    static func places(_ output: String) throws -> [String: [String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let checks = try #require(document["checks"] as? [[String: Any]])
        return Dictionary(
            checks.compactMap { check in
                (check["name"] as? String).flatMap { $0.hasPrefix("place ") ? ($0, check) : nil }
            }, uniquingKeysWith: { a, _ in a })
    }

    @Test func eachPlaceSaysWhetherItsProofsCanRunHere() async throws {
        try await Testbed.run { testbed in
            let rules = try testbed.write(
                """
                version: 1
                places:
                  home:
                    when: { gateway: \(Testbed.peerAddress) }
                    verify:
                      - { https: "\(Testbed.peerAddress):8443", pin: \(Self.pin) }
                  office:
                    when: { all: [ { ssid: XF-WORLD }, { bssid: a4:2b:8c:92:47:3c } ] }
                    verify:
                      - { https: "203.0.113.10:443", pin: \(Self.pin) }
                  cafe:
                    when: { ssid: Cafe }
                rules:
                  - { name: vpn, when: { not: { place: home } }, do: [ { run: "true" } ] }

                """, to: "places.yaml")

            // On the network: the address needs no lookup, and the default route leads there.
            let here = try Self.places(Self.doctor(testbed, rules, json: true))
            #expect(here["place home"]?["status"] as? String == "ok")
            #expect(
                here["place home"]?["detail"] as? String
                    == "when gateway in [\(Testbed.peerAddress)]; proof \(Testbed.peerAddress):8443 can run here: "
                    + "a route leads to \(Testbed.peerAddress) "
                    + "over \(Testbed.link)")
            #expect(here["place office"]?["status"] as? String == "ok")
            #expect(
                (here["place office"]?["detail"] as? String)?.hasPrefix(
                    "when all(ssid in [XF-WORLD], bssid in [a4:2b:8c:92:47:3c]); proof 203.0.113.10:443 can run here")
                    == true, "\(here)")
            #expect(here["place cafe"]?["status"] as? String == "ok")
            #expect(
                here["place cafe"]?["detail"] as? String
                    == "when ssid in [Cafe]; no proof: here whenever its condition holds")

            // Off the network: no default route, so no proof can run; the text says so with the fix.
            try testbed.host.ip("route", "del", "default")
            let away = try Self.doctor(testbed, rules, json: false)
            let line = try #require(away.split(separator: "\n").first { $0.contains("place home:") })
            #expect(
                line
                    == "warning  place home: when gateway in [\(Testbed.peerAddress)]; proof \(Testbed.peerAddress):8443 "
                    + "cannot run here: there is no default route, whose interface the proof is made over. Fix: on "
                    + "the place's network a route must lead to \(Testbed.peerAddress) (away from the place this is "
                    + "expected: the place is then claimed, never here)")
            // A warning is not an error: doctor still exits 0 (shell would have thrown).
            #expect(away.contains("ok       place cafe:"))
        }
    }

    /// A name that does not resolve: checked with no route at all, so the lookup fails at once
    /// instead of reaching any server.
    @Test func aProofHostThatDoesNotResolveIsAWarning() async throws {
        try await Testbed.run(networkUp: false) { testbed in
            let rules = try testbed.write(
                """
                version: 1
                places:
                  home:
                    when: { ssid: HomeNet }
                    verify:
                      - { https: "nas.home.arpa:8443", pin: \(Self.pin) }
                rules:
                  - { name: vpn, when: { not: { place: home } }, do: [ { run: "true" } ] }

                """, to: "places.yaml")
            let checks = try Self.places(Self.doctor(testbed, rules, json: true))
            #expect(checks["place home"]?["status"] as? String == "warning")
            let detail = checks["place home"]?["detail"] as? String ?? ""
            #expect(
                detail.hasPrefix(
                    "when ssid in [HomeNet]; proof nas.home.arpa:8443 cannot run here: nas.home.arpa does not resolve ("
                ),
                "\(detail)")
            let fix = checks["place home"]?["fix"] as? String ?? ""
            #expect(fix.contains("its DNS must resolve nas.home.arpa"), "\(fix)")
        }
    }
}
