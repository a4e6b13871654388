import NetRulesConfig
import NetRulesCore
import Testing

@Suite(.timeLimit(.minutes(1)))
struct PlacesConfigTests {
    static let pin = "sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk="
    static let pin2 = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="

    static func load(_ text: String) -> LoadResult {
        RuleLoader().load([RuleSource(file: "test.yaml", bytes: Array(text.utf8))])
    }

    /// Each diagnostic as `LINE:COL: message`.
    static func problems(_ text: String) -> [String] {
        load(text).diagnostics.map { "\($0.mark.line):\($0.mark.column): \($0.message)" }
    }

    static let example = """
        version: 1
        places:
          office:
            when: { ssid: XF-WORLD, bssid: [a4:2b:8c:92:47:3c, a4:2b:8c:92:47:3d] }
            verify:
              - https: intranet.corp.example:443
                pin: \(pin)
          home:
            when: { gateway: { mac: 00:11:22:33:44:55 } }
            verify:
              - https: https://nas.home.arpa:8443/
                pin: [\(pin), \(pin2)]
            verify_interval: 1m
            timeout: 2s
          lab:
            when: { address: 198.51.100.0/24 }
        rules:
          - name: check-in
            when: { place: office }
            do: [{ run: "true" }]
          - name: vpn
            when: { not: { place: home } }
            do: [{ run: "true" }]
          - name: spoofed
            when: { place: { name: home, is: claimed } }
            do: [{ run: "true" }]
        """

    @Test func readsTheIssueExample() throws {
        let result = Self.load(Self.example)
        #expect(result.diagnostics.isEmpty, "\(result.renderedDiagnostics())")
        let places = result.ruleSet.places
        #expect(places.map(\.name) == ["office", "home", "lab"])
        #expect(places[0].proofs == [PlaceProof(host: "intranet.corp.example", port: 443, pins: [Self.pin])])
        #expect(places[0].verifyInterval == .seconds(900))
        #expect(places[0].timeout == .seconds(3))
        #expect(places[1].proofs == [PlaceProof(host: "nas.home.arpa", port: 8443, pins: [Self.pin, Self.pin2])])
        #expect(places[1].verifyInterval == .seconds(60))
        #expect(places[1].timeout == .seconds(2))
        #expect(places[1].condition.readKeys == [.gatewayMAC])
        #expect(places[2].proofs.isEmpty)
        #expect(
            result.ruleSet.rules.map(\.condition.description) == [
                "places.office is here", "not", "places.home is claimed",
            ])
    }

    @Test func refusesBadPinsNonHTTPSProofsAndUndefinedPlacesAtTheirPositions() {
        let text = """
            version: 1
            places:
              office:
                when: { ssid: Office }
                verify:
                  - https: intranet.example
                    pin: sha256//tooShort=
                  - https: http://intranet.example/
                    pin: \(Self.pin)
                  - https: https://intranet.example/login
                    pin: \(Self.pin)
                  - https: intranet.example
            rules:
              - name: r
                when: { place: ofice }
                do: [{ run: "true" }]
              - name: s
                when: { place: { name: nowhere, is: maybe } }
                do: [{ run: "true" }]
            """
        #expect(
            Self.problems(text) == [
                "7:14: 'sha256//tooShort=' is not a pin: expected 'sha256//' and 44 base64 characters",
                "8:16: a proof must be made over https, not 'http'",
                "10:16: a proof's URL has no path: only the handshake is made",
                "12:9: a proof needs 'pin'",
                "15:20: no place named 'ofice' under 'places:'",
                "18:41: 'maybe' is not one of 'here', 'claimed', 'away'",
            ])
    }

    @Test func refusesAPlaceWhoseConditionReadsPlace() {
        let text = """
            version: 1
            places:
              home:
                when: { ssid: Home }
              office:
                when: { any: [{ ssid: Office }, { place: home }] }
              lab:
                when: { fact: { key: places.home, equals: here } }
            """
        #expect(
            Self.problems(text) == [
                "6:46: a place's condition cannot read 'place'",
                "8:11: a place's condition cannot read 'place' or 'places.*'",
            ])
    }

    @Test func refusesBadNamesDuplicatesAndMissingConditions() {
        let text = """
            version: 1
            places:
              my.office:
                when: { ssid: Office }
              home:
                verify: []
              lab:
                when: { ssid: Lab }
              away:
                when: { ssid: Guest }
            """
        let second = """
            version: 1
            places:
              lab:
                when: { ssid: Lab }
            """
        let problems = RuleLoader().load([
            RuleSource(file: "a.yaml", bytes: Array(text.utf8)), RuleSource(file: "b.yaml", bytes: Array(second.utf8)),
        ]).diagnostics.map { "\($0.file):\($0.mark.line):\($0.mark.column): \($0.message)" }
        #expect(
            problems == [
                "a.yaml:3:3: 'my.office' cannot name a place",
                "a.yaml:6:5: place 'home' has no 'when' condition",
                "a.yaml:9:3: 'away' cannot name a place: it is what 'places.NAME' and Home Assistant's place "
                    + "sensor say when a place is not here",
                "b.yaml:3:3: place 'lab' is defined twice (first at a.yaml:7:3)",
            ])
    }

    @Test func timelinesSetPlacesAndProofOutcomes() throws {
        let timeline = """
            - at: 0s
              facts: { places.office: claimed }
            - at: 1s
              facts: { ssid: XF-WORLD, bssid: a4:2b:8c:92:47:3c, places.office.proof: passed }
            """
        let parsed = Timeline.parse(Array(timeline.utf8), file: "t.yaml")
        #expect(parsed.diagnostics.isEmpty)
        let loaded = Self.load(Self.example)
        let replay = try #require(parsed.timeline).replay(
            rules: loaded.ruleSet.rules, places: loaded.ruleSet.places, clock: .utc)
        #expect(replay.firings.map { "\($0.rule)@\($0.at.seconds)" } == ["check-in@1.0"])
        let bad = Timeline.parse(Array("- at: 0s\n  facts: { places.office: maybe }\n".utf8), file: "t.yaml")
        #expect(bad.diagnostics.map(\.message) == ["'maybe' is not a value 'places.office' can have"])
    }
}
