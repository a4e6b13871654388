import NetRulesCore
import NetRulesTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct PlaceEngineTests {
    static let pin = "sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk="
    static let homeMAC = FactValue.string("00:11:22:33:44:55")

    static func home(proofs: Bool = true) -> PlaceDefinition {
        PlaceDefinition(
            name: "home", condition: FactTestCondition(key: .gatewayMAC, tests: [.oneOf([homeMAC])]),
            proofs: proofs ? [PlaceProof(host: "nas.home.arpa", port: 8443, pins: [pin])] : [])
    }

    static let office = PlaceDefinition(
        name: "office", condition: SSIDCondition(.oneOf([Array("XF-WORLD".utf8)])),
        proofs: [PlaceProof(host: "intranet.corp.example", pins: [pin])])

    static func rule(_ name: String, _ condition: any Condition, on edges: Set<Edge> = [.enter]) -> Rule {
        Rule(name: name, condition: condition, edges: edges, fingerprint: "v1")
    }

    @Test func aClaimedPlaceIsHereOnlyOnceItsProofPasses() {
        var d = EngineDriver(rules: [Self.rule("checkin", PlaceCondition(name: "home"))], places: [Self.home()])
        d.set([.gatewayMAC: Self.homeMAC], at: 0)
        #expect(d.engine.facts[.placeStatus("home")] == .value("claimed"))
        #expect(d.engine.facts[.placeProof("home")] == .value("pending"))
        #expect(d.engine.facts[.place] == .absent)
        #expect(d.take() == [])
        d.prove("home", .passed, at: 1)
        #expect(d.engine.facts[.placeStatus("home")] == .value("here"))
        #expect(d.engine.facts[.place] == .value("home"))
        #expect(d.take() == ["checkin:enter@1"])
        d.finish()
    }

    @Test func aFailedProofKeepsThePlaceClaimedWithItsReason() {
        let vpn = Self.rule("vpn", NotCondition(PlaceCondition(name: "home")))
        var d = EngineDriver(rules: [vpn], places: [Self.home()])
        d.set([.gatewayMAC: Self.homeMAC], at: 0)
        // A claimed home counts as away: the fail-safe VPN rule fires at once.
        #expect(d.take() == ["vpn:enter@0"])
        d.prove("home", .failed(reason: "pin mismatch"), at: 1)
        #expect(d.engine.facts[.placeStatus("home")] == .value("claimed"))
        #expect(d.engine.facts[.placeProof("home")] == .value("failed"))
        #expect(d.engine.facts[.placeReason("home")] == .value("pin mismatch"))
        d.finish()
    }

    @Test func aConditionThatDoesNotHoldIsAwayAndHasNoProof() {
        var d = EngineDriver(rules: [], places: [Self.home()])
        #expect(d.engine.facts[.placeStatus("home")] == .unknown)
        d.set([.gatewayMAC: "66:77:88:99:aa:bb"], at: 0)
        #expect(d.engine.facts[.placeStatus("home")] == .value("away"))
        #expect(d.engine.facts[.placeProof("home")] == .absent)
        d.finish()
    }

    /// Issue 34: where the laptop is starts a new round whatever the condition reads: the office
    /// is proved by its SSID alone, yet another access point, interface or gateway MAC is another
    /// network until proved.
    @Test(arguments: [FactKey.bssid, .interface, .gatewayMAC])
    func aRoamStartsANewProofRoundThoughTheConditionDoesNotReadIt(_ key: FactKey) {
        var d = EngineDriver(rules: [], places: [Self.office])
        d.set([.ssid: .bytes(Array("XF-WORLD".utf8)), key: "first"], at: 0)
        let first = d.engine.proofRound(ofPlace: "office")
        d.prove("office", .passed, at: 1)
        #expect(d.engine.facts[.placeStatus("office")] == .value("here"))
        d.set([key: "second"], at: 2)
        #expect(d.engine.proofRound(ofPlace: "office") != first)
        #expect(d.engine.facts[.placeStatus("office")] == .value("claimed"))
        #expect(d.engine.facts[.placeProof("office")] == .value("pending"))
        d.finish()
    }

    @Test func aNetworkChangeMakesAPassedProofStaleAndDropsAnswersOfTheOldRound() {
        var d = EngineDriver(rules: [], places: [Self.home()])
        d.set([.gatewayMAC: Self.homeMAC, .gateway: "192.0.2.1"], at: 0)
        let first = d.engine.proofRound(ofPlace: "home")!
        d.prove("home", .passed, at: 1)
        #expect(d.engine.facts[.placeStatus("home")] == .value("here"))
        // Another network with the same gateway MAC: the route changed, so the proof must run again.
        d.set([.gateway: "192.0.2.254"], at: 2)
        #expect(d.engine.facts[.placeStatus("home")] == .value("claimed"))
        #expect(d.engine.proofRound(ofPlace: "home")! > first)
        // The first round's answer arrives late: dropped.
        var engine = d.engine
        let step = engine.recordProof(.passed, place: "home", round: first, at: Instant(.seconds(3)))
        #expect(step.changes.isEmpty)
        #expect(engine.facts[.placeStatus("home")] == .value("claimed"))
        d.finish()
    }

    @Test func aPlaceWithoutProofsIsHereWhenItsConditionHolds() {
        var d = EngineDriver(
            rules: [Self.rule("at home", PlaceCondition(name: "home"))], places: [Self.home(proofs: false)])
        d.set([.gatewayMAC: Self.homeMAC], at: 0)
        #expect(d.engine.facts[.placeStatus("home")] == .value("here"))
        #expect(d.engine.facts[.placeProof("home")] == .unknown)
        #expect(d.take() == ["at home:enter@0"])
        d.finish()
    }

    @Test func placeIsTheFirstHereInFileOrderAndUnknownWhileAnEarlierOneIs() {
        var d = EngineDriver(rules: [], places: [Self.office, Self.home(proofs: false)])
        d.set([.gatewayMAC: Self.homeMAC], at: 0)
        // The office's condition reads the SSID, not reported yet: it might be the office.
        #expect(d.engine.facts[.place] == .unknown)
        d.set([.ssid: "XF-WORLD"], at: 1)
        #expect(d.engine.facts[.place] == .value("home"))
        d.prove("office", .passed, at: 2)
        #expect(d.engine.facts[.place] == .value("office"))
        d.finish()
    }

    @Test func aTimelineMaySetAPlaceOrAProofDirectly() {
        let claimed = Self.rule("claimed", PlaceCondition(name: "home", is: .claimed))
        var d = EngineDriver(rules: [claimed], places: [Self.home()])
        d.set([.placeStatus("home"): "claimed"], at: 0)
        #expect(d.take() == ["claimed:enter@0"])
        d.set([.gatewayMAC: Self.homeMAC, .placeProof("home"): "passed"], at: 1)
        #expect(d.engine.facts[.placeStatus("home")] == .value("here"))
        #expect(d.engine.facts[.place] == .value("home"))
        d.finish()
    }

    @Test func aReloadKeepsTheProofOfAnUnchangedPlaceAndForgetsARemovedOne() {
        var home = Self.home()
        home.fingerprint = "h1"
        var office = Self.office
        office.fingerprint = "o1"
        var engine = Engine(rules: [], places: [home, office])
        _ = engine.apply(FactUpdate(values: [.gatewayMAC: Self.homeMAC, .ssid: "Other"]), at: .zero)
        let round = engine.proofRound(ofPlace: "home")!
        _ = engine.recordProof(.passed, place: "home", round: round, at: .zero)
        #expect(engine.facts[.place] == .value("home"))
        _ = engine.replaceRules([], places: [home], at: Instant(.seconds(1)))
        #expect(engine.facts[.placeStatus("home")] == .value("here"))
        #expect(engine.facts[.placeStatus("office")] == .unknown)
        home.fingerprint = "h2"
        _ = engine.replaceRules([], places: [home], at: Instant(.seconds(2)))
        #expect(engine.facts[.placeStatus("home")] == .value("claimed"))
        #expect(engine.facts[.place] == .absent)
    }

    @Test(arguments: [
        ("sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk=", true),
        ("sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk", false),
        ("sha1//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk=", false),
        ("sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Y!=", false),
        ("sha256//+/UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk=", true),
    ])
    func pinsAreCurlsSHA256Form(pin: String, valid: Bool) {
        #expect(PlaceProof.isValidPin(pin) == valid)
    }
}
