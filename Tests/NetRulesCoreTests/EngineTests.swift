import NetRulesCore
import NetRulesTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct EngineTests {
    static let office = SSIDCondition(.oneOf([Array("Office".utf8)]))

    static func rule(
        _ name: String = "office", _ condition: any Condition = EngineTests.office, on edges: Set<Edge> = [.enter],
        for hold: Duration = .zero, cooldown: Duration = .zero, fingerprint: String = "v1"
    ) -> Rule {
        Rule(name: name, condition: condition, edges: edges, hold: hold, cooldown: cooldown, fingerprint: fingerprint)
    }

    @Test func firstKnownTrueFiresEnter() {
        var d = EngineDriver(rules: [Self.rule()])
        d.set([.ssid: "Office"], at: 0)
        #expect(d.take() == ["office:enter@0"])
        d.finish()
    }

    @Test func firstKnownFalseFiresNothingThenEdgesFire() {
        var d = EngineDriver(rules: [Self.rule(on: [.enter, .exit])])
        d.set([.ssid: "Home"], at: 0)
        #expect(d.take() == [])
        d.set([.ssid: "Office"], at: 5)
        d.set([.ssid: nil], at: 9)
        #expect(d.take() == ["office:enter@5", "office:exit@9"])
        d.finish()
    }

    @Test func passingThroughUnknownFiresNothing() {
        var d = EngineDriver(rules: [Self.rule(on: [.enter, .exit])])
        d.set([.ssid: "Office"], at: 0)
        #expect(d.take() == ["office:enter@0"])
        d.apply(.forget(.ssid), at: 1)
        d.set([.ssid: "Office"], at: 2)
        #expect(d.take() == [])
        d.apply(.forget(.ssid), at: 3)
        d.set([.ssid: "Home"], at: 4)
        #expect(d.take() == ["office:exit@4"])
        d.finish()
    }

    @Test func unknownStaysUnknownThroughAll() {
        let clear = FactInSetCondition(key: .connectivity, accepted: ["online"], spelling: "portal: clear")
        var d = EngineDriver(rules: [Self.rule("checkin", AllCondition([Self.office, clear]))])
        d.set([.ssid: "Office"], at: 0)
        #expect(d.take() == [])  // true ∧ unknown: no edge yet
        d.set([.connectivity: "portal"], at: 3)
        #expect(d.take() == [])  // first known false
        d.set([.connectivity: "online"], at: 40)
        #expect(d.take() == ["checkin:enter@40"])
        d.finish()
    }

    @Test func onlySelectedEdgesFire() {
        var d = EngineDriver(rules: [Self.rule(on: [.exit])])
        d.set([.ssid: "Office"], at: 0)
        d.set([.ssid: "Home"], at: 1)
        d.set([.ssid: "Office"], at: 2)
        #expect(d.take() == ["office:exit@1"])
        d.finish()
    }

    @Test func holdFiresAtDeadline() {
        var d = EngineDriver(rules: [Self.rule(for: .seconds(10))])
        d.set([.ssid: "Office"], at: 0)
        d.advance(to: 9.999)
        #expect(d.take() == [])
        #expect(d.engine.nextDeadline == Instant(.seconds(10)))
        d.advance(to: 30)
        #expect(d.take() == ["office:enter@10"])
        #expect(d.engine.nextDeadline == nil)
        d.finish()
    }

    @Test func holdCancelsWhenConditionLeaves() {
        var d = EngineDriver(rules: [Self.rule(for: .seconds(10))])
        d.set([.ssid: "Home"], at: 0)
        d.set([.ssid: "Office"], at: 1)
        d.set([.ssid: "Home"], at: 5)
        d.advance(to: 20)
        #expect(d.take() == [])
        d.set([.ssid: "Office"], at: 21)
        d.apply(.forget(.ssid), at: 25)  // unknown also cancels: nobody knows it held
        d.advance(to: 40)
        #expect(d.take() == [])
        d.finish()
    }

    @Test func holdAppliesToExitToo() {
        var d = EngineDriver(rules: [Self.rule(on: [.enter, .exit], for: .seconds(5))])
        d.set([.ssid: "Office"], at: 0)
        d.advance(to: 5)
        #expect(d.take() == ["office:enter@5"])
        d.set([.ssid: "Home"], at: 6)
        d.set([.ssid: "Office"], at: 8)  // a brief flap: no exit, no second enter
        d.advance(to: 20)
        #expect(d.take() == [])
        d.set([.ssid: "Home"], at: 21)
        d.advance(to: 30)
        #expect(d.take() == ["office:exit@26"])
        d.finish()
    }

    @Test func dueHoldCompletesBeforeALaterUpdate() {
        var d = EngineDriver(rules: [Self.rule(for: .seconds(10))])
        d.set([.ssid: "Office"], at: 0)
        d.set([.ssid: "Home"], at: 10)  // held exactly 10 s: fires at its deadline first
        #expect(d.take() == ["office:enter@10"])
        d.finish()
    }

    @Test func cooldownDropsFiringsButTracksState() {
        var d = EngineDriver(rules: [Self.rule(on: [.enter, .exit], cooldown: .seconds(60))])
        d.set([.ssid: "Office"], at: 0)
        d.set([.ssid: "Home"], at: 10)
        d.set([.ssid: "Office"], at: 20)
        #expect(d.take() == ["office:enter@0"])
        d.set([.ssid: "Home"], at: 61)
        #expect(d.take() == ["office:exit@61"])
        d.set([.ssid: "Office"], at: 62)
        #expect(d.take() == [])
        d.finish()
    }

    @Test func updatesReEvaluateOnlyRulesReadingChangedKeys() {
        let host = HostCondition(host: "intranet", wantsReachable: false)
        var d = EngineDriver(rules: [Self.rule("a"), Self.rule("b", host)])
        d.set([.ssid: "Office", .host("intranet"): "reachable"], at: 0)
        #expect(d.take() == ["a:enter@0"])
        d.set([.host("intranet"): "unreachable"], at: 1)
        #expect(d.take() == ["b:enter@1"])
        #expect(d.engine.states[0].current == .true)
        d.finish()
    }

    @Test func firingCarriesFactsAtThatMoment() {
        var d = EngineDriver(rules: [Self.rule()])
        d.set([.ssid: "Office", .bssid: "a4:2b:8c:92:47:3c"], at: 0)
        let firing = d.takeFirings()
        #expect(firing.count == 1)
        #expect(firing.first?.facts[.bssid] == .value("a4:2b:8c:92:47:3c"))
        d.finish()
    }

    @Test func reloadKeepsStateOfUnchangedRules() {
        var engine = Engine(rules: [Self.rule("a"), Self.rule("b", fingerprint: "v1")])
        #expect(engine.apply(.set([.ssid: "Office"]), at: .zero).map(\.rule) == ["a", "b"])
        let again = engine.replaceRules(
            [Self.rule("a"), Self.rule("b", fingerprint: "v2"), Self.rule("c")], at: Instant(.seconds(1)))
        // a kept its state; b changed (its identity with it) and keeps its confirmed truth, which
        // its condition still gives: no second enter; c is new and fires.
        #expect(again.map(\.rule) == ["c"])
        #expect(engine.apply(.set([.ssid: "Home"]), at: Instant(.seconds(2))).isEmpty)
    }

    @Test func explainShowsTheTree() {
        let clear = FactInSetCondition(key: .connectivity, accepted: ["online"], spelling: "portal: clear")
        var engine = Engine(rules: [Self.rule("checkin", AllCondition([Self.office, clear]))])
        _ = engine.apply(.set([.ssid: "Office"]), at: .zero)
        let explanation = engine.explain(rule: "checkin")
        #expect(explanation?.text == "unknown all\n  true    ssid in [Office]\n  unknown portal: clear")
        #expect(explanation?.facts.map(\.key) == [.connectivity, .ssid])
        #expect(engine.explain(rule: "nope") == nil)
    }

    @Test func restoredStatesKeepHolds() {
        var engine = Engine(rules: [Self.rule(for: .seconds(10))])
        _ = engine.apply(.set([.ssid: "Office"]), at: .zero)
        let saved = ["office": (fingerprint: "v1", identity: String?.none, state: engine.states[0])]
        var restarted = Engine(rules: [Self.rule(for: .seconds(10))])
        restarted.restore(saved)
        _ = restarted.apply(.set([.ssid: "Office"]), at: Instant(.seconds(3)))
        #expect(restarted.tick(at: Instant(.seconds(10))).map(\.at) == [Instant(.seconds(10))])
    }
}

@Suite(.timeLimit(.minutes(1)))
struct EngineRestartTests {
    static let office = SSIDCondition(.oneOf([Array("Office".utf8)]))
    static let clear = FactInSetCondition(key: .connectivity, accepted: ["online"], spelling: "portal: clear")

    static func restarted(from engine: Engine, rules: [Rule]) -> Engine {
        var saved: [String: (fingerprint: String, identity: String?, state: RuleState)] = [:]
        for (rule, state) in zip(engine.rules, engine.states) {
            saved[rule.name] = (rule.fingerprint, rule.identity, state)
        }
        var next = Engine(rules: rules)
        next.restore(saved)
        return next
    }

    @Test func restoredHoldSurvivesUnknownFactsAndFiresAtItsDeadline() {
        let rules = [
            Rule(name: "r", condition: AllCondition([Self.office, Self.clear]), hold: .seconds(10), fingerprint: "v1")
        ]
        var engine = Engine(rules: rules)
        _ = engine.apply(.set([.ssid: "Office", .connectivity: "online"]), at: .zero)
        var next = Self.restarted(from: engine, rules: rules)
        // After the restart the facts arrive one by one: the partial (unknown) state must not cancel it.
        #expect(next.apply(.set([.ssid: "Office"]), at: Instant(.seconds(2))).isEmpty)
        #expect(next.apply(.set([.connectivity: "online"]), at: Instant(.seconds(3))).isEmpty)
        #expect(next.nextDeadline == Instant(.seconds(10)))
        #expect(next.tick(at: Instant(.seconds(10))).map(\.edge) == [.enter])
    }

    @Test func restoredHoldWhoseDeadlinePassedFiresOnceConfirmed() {
        let rules = [Rule(name: "r", condition: Self.office, hold: .seconds(10), fingerprint: "v1")]
        var engine = Engine(rules: rules)
        _ = engine.apply(.set([.ssid: "Office"]), at: .zero)
        var next = Self.restarted(from: engine, rules: rules)
        #expect(next.tick(at: Instant(.seconds(60))).isEmpty)  // unknown: not confirmed yet
        let firings = next.apply(.set([.ssid: "Office"]), at: Instant(.seconds(61)))
        #expect(firings.map(\.at) == [Instant(.seconds(61))])
    }

    @Test func restoredHoldIsCancelledWhenTheConditionNoLongerHolds() {
        let rules = [Rule(name: "r", condition: Self.office, hold: .seconds(10), fingerprint: "v1")]
        var engine = Engine(rules: rules)
        _ = engine.apply(.set([.ssid: "Home"]), at: .zero)
        _ = engine.apply(.set([.ssid: "Office"]), at: Instant(.seconds(1)))
        var next = Self.restarted(from: engine, rules: rules)
        #expect(next.apply(.set([.ssid: "Home"]), at: Instant(.seconds(2))).isEmpty)
        #expect(next.tick(at: Instant(.seconds(100))).isEmpty)
        #expect(next.nextDeadline == nil)
    }

    @Test func confirmedStateIsNotRepeatedAfterARestart() {
        let rules = [Rule(name: "r", condition: Self.office, fingerprint: "v1")]
        var engine = Engine(rules: rules)
        #expect(engine.apply(.set([.ssid: "Office"]), at: .zero).count == 1)
        var next = Self.restarted(from: engine, rules: rules)
        #expect(next.apply(.set([.ssid: "Office"]), at: Instant(.seconds(5))).isEmpty)
        // A rule whose condition changed keeps its confirmed truth: true again, no second enter;
        // false, and its exit would fire.
        var changed = Self.restarted(from: engine, rules: [Rule(name: "r", condition: Self.office, fingerprint: "v2")])
        #expect(changed.apply(.set([.ssid: "Office"]), at: Instant(.seconds(5))).isEmpty)
        // After a new boot only the windows stay: the condition fires its enter as on a first run.
        var saved: [String: (fingerprint: String, identity: String?, state: RuleState)] = [:]
        for (rule, state) in zip(engine.rules, engine.states) {
            saved[rule.name] = (rule.fingerprint, rule.identity, state)
        }
        var rebooted = Engine(rules: rules)
        rebooted.restore(saved, forgetTruth: true)
        #expect(rebooted.apply(.set([.ssid: "Office"]), at: Instant(.seconds(5))).count == 1)
    }

    @Test func aCompleteNamespaceMakesUnreportedKeysAbsent() {
        let down = InterfaceCondition(name: "wg0", wantsUp: false)
        var engine = Engine(rules: [Rule(name: "vpn-down", condition: down)])
        let update = FactUpdate([.interfaceState("eth0"): .value("up")], completeNamespaces: ["interfaces"])
        #expect(engine.apply(update, at: .zero).map(\.rule) == ["vpn-down"])
        #expect(engine.facts[.interfaceState("wg0")] == .absent)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct EngineDurableStateTests {
    @Test func durableVersionMovesOnlyWithWhatARestartKeeps() {
        let office = SSIDCondition(.oneOf([Array("Office".utf8)]))
        var engine = Engine(rules: [Rule(name: "r", condition: office, hold: .seconds(5))])
        let start = engine.durableStateVersion
        _ = engine.apply(.set([.signal: .number(-60)]), at: .zero)  // no rule reads it
        #expect(engine.durableStateVersion == start)
        _ = engine.apply(.set([.ssid: "Office"]), at: .zero)  // a hold starts
        let held = engine.durableStateVersion
        #expect(held != start)
        _ = engine.apply(.set([.ssid: "Office", .bssid: "a1:b2:c3:d4:e5:f6"]), at: Instant(.seconds(1)))
        #expect(engine.durableStateVersion == held)  // same truth, same hold
        _ = engine.tick(at: Instant(.seconds(5)))  // the hold completes: confirmed changes
        #expect(engine.durableStateVersion != held)
    }
}
