import Foundation
import NetRulesCore
import Testing

/// `explain` shows each place a rule reads with its condition, its proofs and where they stand;
/// `status` shows a failed proof's reason (issue 22). Through a real control socket to a fake
/// daemon whose engine was told the proof failed, as the prober reports it.
@Suite(.timeLimit(.minutes(1)))
struct ExplainPlacesTests {
    static let reason =
        "intranet.corp.example:443: pin mismatch: presented sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=, "
        + "which matches none of the pins"

    static let rules = """
        version: 1
        places:
          office:
            when: { all: [ { ssid: XF-WORLD }, { bssid: a4:2b:8c:92:47:3c } ] }
            verify:
              - https: intranet.corp.example:443
                pin: sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk=
          cafe:
            when: { ssid: Cafe }
        rules:
          - name: check-in
            when: { place: office }
            do:
              - run: "true"
          - name: anywhere
            when: { ssid: { matches: "." } }
            do:
              - run: "true"
        """

    static func daemon() -> FakeDaemonQueries {
        FakeDaemonQueries(
            yaml: rules,
            facts: [
                "ssid": .value(.string("XF-WORLD")), "bssid": .value(.string("a4:2b:8c:92:47:3c")),
                "places.office.proof": .value(.string("failed")), "places.office.reason": .value(.string(reason)),
            ])
    }

    func run(_ arguments: [String]) async -> CommandTests.Outcome {
        await CommandTests.run(arguments, environment: [:])
    }

    @Test func explainShowsTheClaimedPlaceWithItsConditionProofsAndReason() async throws {
        let fixture = try await ControlFixture.start(Self.daemon())
        let text = await run(["explain", "check-in", "--socket", fixture.path])
        #expect(text.code == 0)
        #expect(
            text.stdout == """
                rule check-in: FALSE (source: daemon)
                false   places.office is here
                place office: claimed
                  when (true): all(ssid in [XF-WORLD], bssid in [a4:2b:8c:92:47:3c])
                  proofs: intranet.corp.example:443
                  proof: failed (\(Self.reason))
                facts read:
                  places.office  claimed

                """)
        let json = await run(["explain", "check-in", "--json", "--socket", fixture.path])
        #expect(
            json.stdout.hasSuffix(
                #""places":[{"name":"office","when":"all(ssid in [XF-WORLD], bssid in [a4:2b:8c:92:47:3c])","#
                    + #""condition_truth":"true","proofs":["intranet.corp.example:443"],"status":"claimed","#
                    + #""proof":"failed","reason":"\#(Self.reason)"}]}"# + "\n"), "\(json.stdout)")
        // A rule that reads no place has no "places" member.
        let other = await run(["explain", "anywhere", "--json", "--socket", fixture.path])
        #expect(!other.stdout.contains(#""places""#))
        try await fixture.stop()
    }

    @Test func statusShowsTheFailedProofsReason() async throws {
        let fixture = try await ControlFixture.start(Self.daemon())
        let status = await run(["status", "--socket", fixture.path])
        #expect(status.code == 0)
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("places.office ") && $0.hasSuffix(" claimed") }, "\(status.stdout)")
        #expect(lines.contains { $0.hasPrefix("places.office.proof ") && $0.hasSuffix(" failed") })
        #expect(lines.contains { $0.hasPrefix("places.office.reason ") && $0.hasSuffix(Self.reason) })
        let json = await run(["status", "--json", "--socket", fixture.path])
        #expect(json.stdout.contains(#""places.office.reason":"\#(Self.reason)""#), "\(json.stdout)")
        try await fixture.stop()
    }
}
