import Foundation
import Testing

/// The shipped rules act on verified places (issue 22): the check-in only at an office whose
/// proof passed, the VPN on a home that is only claimed, and no VPN flicker at daemon start
/// while the home's proof is pending. A timeline names a proof's outcome (`places.NAME.proof`)
/// or a place's status (`places.NAME`) where the daemon's prober would have reported it.
@Suite(.timeLimit(.minutes(2)))
struct ShippedPlaceRulesTests {
    static func simulate(_ rules: String, _ timeline: String, _ extra: String...) async throws -> CommandTests.Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-places-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("t.yaml")
        try timeline.write(to: file, atomically: true, encoding: .utf8)
        return await CommandTests.run(["simulate", CommandTests.path("rules/\(rules).yaml"), "-t", file.path] + extra)
    }

    @Test func theVPNDoesNotStartAtHomeWhileItsProofIsPending() async throws {
        let r = try await Self.simulate(
            "vpn-away-from-home",
            """
            - at: 0s
              facts: { ssid: HomeNet }
            - at: 40ms
              facts: { places.home.proof: passed }
            - at: 1h
              facts: { ssid: HomeNet-5G }
            - at: 1h40ms
              facts: { places.home.proof: passed }

            """)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "0 firings\n")
    }

    @Test func aHomeWhoseProofFailsIsAwayAndTheVPNStarts() async throws {
        let r = try await Self.simulate(
            "vpn-away-from-home",
            """
            - at: 0s
              facts: { ssid: HomeNet }
            - at: 3s
              facts: { places.home.proof: failed, places.home.reason: "nas.home.arpa:8443: timeout after 3s" }

            """, "--json")
        #expect(r.code == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""at":5.0,"rule":"vpn-away-from-home","edge":"enter""#) == true, "\(r.stdout)")
    }

    @Test func theOfficeChecksInOnlyOnceItsProofPassed() async throws {
        // Monday 08:00: the office's SSID and BSSID, but the intranet presents another key.
        let spoofed = try await Self.simulate(
            "office-check-in",
            """
            - at: 8h
              facts: { ssid: XF-WORLD, bssid: a4:2b:8c:92:47:3c, connectivity: online }
            - at: 8h10ms
              facts: { places.office.proof: failed, places.office.reason: "pin mismatch" }

            """)
        #expect(spoofed.code == 0, "\(spoofed.stderr)")
        #expect(spoofed.stdout == "0 firings\n")
        let verified = try await Self.simulate(
            "office-check-in",
            """
            - at: 8h
              facts: { ssid: XF-WORLD, bssid: a4:2b:8c:92:47:3c, connectivity: online }
            - at: 8h10ms
              facts: { places.office.proof: passed }

            """, "--json")
        #expect(verified.code == 0, "\(verified.stderr)")
        #expect(verified.stdout.split(separator: "\n").count == 1)
        #expect(
            verified.stdout.contains(#""at":28810.01,"rule":"office-check-in","edge":"enter""#), "\(verified.stdout)")
    }

    @Test func aTimelineMaySetAPlacesStatusDirectly() async throws {
        let r = try await Self.simulate(
            "office-check-in",
            """
            - at: 8h
              facts: { ssid: XF-WORLD, bssid: a4:2b:8c:92:47:3c, connectivity: online, places.office: here }

            """)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("8h10s  Mon 08:00:10  office-check-in  enter  webhook, write\n"), "\(r.stdout)")
    }
}
