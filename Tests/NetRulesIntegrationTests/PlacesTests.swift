import Foundation
import NetRulesTesting
import Testing

/// Issue 22: a place is `here` only when a TLS server on its network presents a pinned key.
///
/// The testbed's peer is the gateway; python3 TLS servers there present certificates the test
/// makes. A "network switch" is the link going down and up again with the same address and
/// gateway, as a spoofing access point that copies SSID, BSSID and gateway would look.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct PlacesTests {
    static let port = 8443

    /// Takes the link down and up again with the same configuration; returns the wall time (ns) it began.
    @discardableResult
    static func switchNetwork(_ testbed: Testbed) throws -> Int64 {
        let began = Self.wallNanoseconds()
        try testbed.host.ip("link", "set", Testbed.link, "down")
        try testbed.host.ip("link", "set", Testbed.link, "up")
        try testbed.host.ip("route", "replace", "default", "via", Testbed.peerAddress)
        return began
    }

    static func wallNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    static func facts(_ testbed: Testbed) -> [String: Any] {
        let text = testbed.daemonFacts()
        let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return json?["facts"] as? [String: Any] ?? [:]
    }

    static func rules(pins: [String], vpn: ActionRecord, home: ActionRecord, hook: String) -> String {
        """
        version: 1
        places:
          home:
            when: { gateway: \(Testbed.peerAddress) }
            verify:
              - https: \(Testbed.peerAddress):\(port)
                pin: [\(pins.joined(separator: ", "))]
            timeout: 1s
        rules:
          - name: vpn
            when: { not: { place: home } }
            on: [enter, exit]
            do:
              \(vpn.action(hook: hook))
          - name: at-home
            when: { place: home }
            on: [enter, exit]
            do:
              \(home.action(hook: hook))

        """
    }

    @Test func hereOnlyWithThePinnedKeyAndClaimedOtherwise() async throws {
        try await Testbed.run { testbed in
            let genuine = try TestCertificate("genuine", commonName: "nas.home.arpa", in: testbed.directory)
            let spoof = try TestCertificate("spoof", commonName: "nas.home.arpa", in: testbed.directory)
            let rotated = try TestCertificate("rotated", commonName: "nas.home.arpa", in: testbed.directory)
            let hook = try ActionRecord.script(in: testbed)
            let vpn = ActionRecord(path: testbed.path("vpn"))
            let home = ActionRecord(path: testbed.path("home"))
            let rules = try testbed.write(
                Self.rules(pins: [try genuine.opensslPin, try rotated.opensslPin], vpn: vpn, home: home, hook: hook),
                to: "places.yaml")
            var server = try TestTLSServer(genuine, address: Testbed.peerAddress, port: Self.port, in: testbed.peer)
            let daemon = try await testbed.startDaemon(rules: [rules])

            // The pinned key: here. (Until the proof passed the home was claimed, which the VPN rule counts as away.)
            try await eventually("home to be here") { home.edges == ["enter"] }
            #expect(Self.facts(testbed)["places.home"] as? String == "here")
            #expect(Self.facts(testbed)["place"] as? String == "home")
            try await eventually("the VPN to be off") { vpn.edges.last == "exit" }

            // The spoofing network: the same name, address and gateway, another key.
            server.stop()
            server = try TestTLSServer(spoof, address: Testbed.peerAddress, port: Self.port, in: testbed.peer)
            let switched = try Self.switchNetwork(testbed)
            try await eventually("the VPN to start on the spoofing network", timeout: .seconds(2)) {
                vpn.edges.last == "enter"
            }
            let vpnOn = try #require(vpn.entries.last)
            #expect(vpnOn.nanoseconds - switched < 2_000_000_000)
            // The home rule's exit runs beside the VPN's enter: it may record a moment later.
            try await eventually("home to be left on the spoofing network") { home.edges == ["enter", "exit"] }
            try await eventually("the mismatch to be reported") {
                (Self.facts(testbed)["places.home.reason"] as? String ?? "").contains("pin mismatch")
            }
            let facts = Self.facts(testbed)
            #expect(facts["places.home"] as? String == "claimed")
            #expect(facts["places.home.proof"] as? String == "failed")
            #expect((facts["places.home.reason"] as? String ?? "").contains(try spoof.opensslPin))
            #expect(facts["place"] is NSNull)

            // No server at all: claimed, never here.
            server.stop()
            try Self.switchNetwork(testbed)
            try await eventually("the missing server to be reported") {
                (Self.facts(testbed)["places.home.reason"] as? String ?? "").contains("no connection")
            }
            #expect(Self.facts(testbed)["places.home"] as? String == "claimed")

            // The rotated key is pinned too: here again.
            server = try TestTLSServer(rotated, address: Testbed.peerAddress, port: Self.port, in: testbed.peer)
            try Self.switchNetwork(testbed)
            try await eventually("home to be here with the rotated key") { home.edges == ["enter", "exit", "enter"] }
            // The VPN rule's action runs beside the home rule's: it may record a moment later.
            try await eventually("the VPN to be off at home again") { vpn.edges.last == "exit" }

            // The condition false: away.
            try testbed.host.ip("route", "del", "default")
            try await eventually("home to be away") { Self.facts(testbed)["places.home"] as? String == "away" }
            #expect(Self.facts(testbed)["places.home.proof"] is NSNull)
            try await eventually("the VPN to start away from home") { vpn.edges.last == "enter" }
            server.stop()
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    /// Issue 34: a roam to another access point with the same SSID and IP settings starts a new
    /// proof round, though the place's condition reads only the SSID: the server presenting
    /// another key makes the place `claimed` within 3 s, and the log names both pins.
    @Test func aRoamToAnotherAccessPointProvesThePlaceAgain() async throws {
        try await Testbed.run { testbed in
            let genuine = try TestCertificate("genuine", commonName: "nas.home.arpa", in: testbed.directory)
            let spoof = try TestCertificate("spoof", commonName: "nas.home.arpa", in: testbed.directory)
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Home", bssid: "aa:aa:aa:aa:aa:01")
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                places:
                  home:
                    when: { ssid: Home }
                    verify:
                      - https: \(Testbed.peerAddress):\(Self.port)
                        pin: \(try genuine.opensslPin)
                    timeout: 1s
                rules:
                  - name: at-home
                    when: { place: home }
                    do: [ { run: "true" } ]

                """, to: "places.yaml")
            var server = try TestTLSServer(genuine, address: Testbed.peerAddress, port: Self.port, in: testbed.peer)
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await eventually("home to be here") { Self.facts(testbed)["places.home"] as? String == "here" }

            // Another access point, the same SSID and addresses; its network's server has another key.
            server.stop()
            server = try TestTLSServer(spoof, address: Testbed.peerAddress, port: Self.port, in: testbed.peer)
            let roamed = ContinuousClock.now
            try wifi.report(ssid: "Home", bssid: "aa:aa:aa:aa:aa:02")
            try await eventually("home to be claimed after the roam", timeout: .seconds(3)) {
                Self.facts(testbed)["places.home"] as? String == "claimed"
            }
            print("PlacesTests: claimed \(ContinuousClock.now - roamed) after the roam")
            try await eventually("the mismatch in the log") { testbed.log.contains("pin mismatch") }
            let line = testbed.log.split(separator: "\n").first { $0.contains("pin mismatch") }.map(String.init) ?? ""
            #expect(line.contains("warning"), "\(line)")
            #expect(line.contains("place 'home' not proved"), "\(line)")
            let (presented, pinned) = (try spoof.opensslPin, try genuine.opensslPin)
            #expect(line.contains(presented) && line.contains(pinned), "\(line)")

            // Back to the first access point, whose server has the pinned key: here again.
            server.stop()
            server = try TestTLSServer(genuine, address: Testbed.peerAddress, port: Self.port, in: testbed.peer)
            try wifi.report(ssid: "Home", bssid: "aa:aa:aa:aa:aa:01")
            try await eventually("home to be here again") { Self.facts(testbed)["places.home"] as? String == "here" }
            server.stop()
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    /// Whether to measure: a benchmark, not a timed test (`NETRULES_BENCH=1 scripts/test --filter
    /// PlacesTests/timeFrom` prints the figure).
    static let measuring = ProcessInfo.processInfo.environment["NETRULES_BENCH"] == "1"

    /// The figure of issue 22: network change → `here` (the at-home action's start), over 20
    /// changes. Each change waits for the place to be left before the network comes back, so a
    /// down and up the kernel or the daemon coalesce (as they rightly may under load) cannot lose
    /// an edge; the time runs from the link coming back up.
    @Test(.enabled(if: measuring, "set NETRULES_BENCH=1 to measure network change → here"))
    func timeFromANetworkChangeToHere() async throws {
        try await Testbed.run { testbed in
            let genuine = try TestCertificate("genuine", commonName: "nas.home.arpa", in: testbed.directory)
            let hook = try ActionRecord.script(in: testbed)
            let vpn = ActionRecord(path: testbed.path("vpn"))
            let home = ActionRecord(path: testbed.path("home"))
            let rules = try testbed.write(
                Self.rules(pins: [try genuine.opensslPin], vpn: vpn, home: home, hook: hook), to: "places.yaml")
            let server = try TestTLSServer(genuine, address: Testbed.peerAddress, port: Self.port, in: testbed.peer)
            defer { server.stop() }
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await eventually("home to be here") { home.edges == ["enter"] }
            var samples: [Double] = []
            for change in 1...20 {
                // Settled at home: learning the gateway's MAC after a change is a change of its own,
                // so the place may go claimed and back once more before it stays here.
                try await eventually("home to settle (change \(change))") {
                    home.entries.last?.edge == "enter" && Self.facts(testbed)["places.home"] as? String == "here"
                }
                let before = home.entries.count
                try testbed.host.ip("link", "set", Testbed.link, "down")
                try await eventually("home to be left (change \(change))") {
                    home.entries.dropFirst(before).contains { $0.edge == "exit" }
                }
                let left = home.entries.count
                let began = Self.wallNanoseconds()
                try testbed.host.ip("link", "set", Testbed.link, "up")
                try testbed.host.ip("route", "replace", "default", "via", Testbed.peerAddress)
                try await eventually("home to be here again (change \(change))") {
                    home.entries.dropFirst(left).contains { $0.edge == "enter" }
                }
                let here = home.entries.dropFirst(left).first { $0.edge == "enter" }!.nanoseconds
                samples.append(Double(here - began) / 1_000_000)
            }
            samples.sort()
            let p50 = samples[samples.count / 2]
            let p99 = samples[samples.count - 1]
            print("places: network change → here: p50 \(p50) ms, p99 \(p99) ms over \(samples.count) changes")
            #expect(p99 < 2000)
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
