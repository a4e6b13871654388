import NetRulesCore
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// A dead observer leaves no stale facts: `DaemonCore` makes what it reported unknown at once and
/// starts it again after a back-off of 1 s doubling to 60 s, walked on virtual time.
@Suite(.timeLimit(.minutes(1)))
struct ObserverSupervisionTests {
    static let rules = """
        version: 1
        rules:
          - name: at-home
            when: { fact: { key: gateway, equals: 192.0.2.1 } }
            on: [enter, exit]
            do:
              - run: echo home
          - name: vpn-link
            when: { fact: { key: interfaces.wg0, equals: up } }
            do:
              - run: echo wg
          - name: office
            when: { ssid: Office }
            do:
              - run: echo office
        """

    static func netlink(_ values: [FactKey: FactValue?]) -> DaemonEvent {
        var update = FactUpdate(values: values)
        update.completeNamespaces = ["interfaces"]
        return .facts(update, from: "netlink")
    }

    static func ended(_ identity: String, ranFor seconds: Double, error: String? = "recvmsg failed") -> DaemonEvent {
        .observerEnded(identity: identity, name: identity, error: error, ranFor: .milliseconds(Int64(seconds * 1000)))
    }

    static func restarts(_ effects: [DaemonEffect]) -> [String] {
        effects.compactMap { if case .restartObserver(let identity) = $0 { identity } else { nil } }
    }

    static func unknownKeys(_ effects: [DaemonEffect]) -> [String] {
        effects.flatMap { effect -> [String] in
            guard case .factsChanged(let changes) = effect else { return [] }
            return changes.filter { $0.new == .unknown }.map(\.key.rawValue)
        }
    }

    @Test func aDeadObserversFactsBecomeUnknownAtOnceAndOthersKeepTheirs() {
        var driver = DaemonCoreDriver(rules: Self.rules)
        driver.send(Self.netlink([.gateway: "192.0.2.1", "interfaces.eth0": "up", .ip: "192.0.2.7/24"]), at: 1)
        driver.send(.facts(FactUpdate(values: [.ssid: "Office"]), from: "wifi"), at: 1)
        #expect(driver.firings == ["at-home:enter@1", "office:enter@1"])
        #expect(driver.core.engine.facts["interfaces.wg0"] == .absent, "the namespace was reported whole")

        let effects = driver.send(Self.ended("netlink", ranFor: 4), at: 5)
        #expect(Self.unknownKeys(effects) == ["gateway", "interfaces.eth0", "interfaces.wg0", "ip"])
        #expect(driver.core.engine.facts[.ssid] == .value("Office"), "the Wi-Fi observer still vouches for it")
        // Passing through unknown fires nothing: the VPN rule does not see 'home' end.
        #expect(driver.firings == ["at-home:enter@1", "office:enter@1"])
        #expect(driver.armed == Instant(.seconds(6)))
        driver.advance(to: 6)
        #expect(Self.restarts(driver.last) == ["netlink"])
        #expect(driver.armed == nil, "nothing else is pending: no timer")

        // Back, it reports again and the rule is known true again (no new edge: it was true before).
        driver.send(Self.netlink([.gateway: "192.0.2.1", "interfaces.eth0": "up"]), at: 6.5)
        #expect(driver.core.engine.facts[.gateway] == .value("192.0.2.1"))
    }

    @Test func restartsBackOffFromOneSecondToAMinuteAndStartOverAfterAStableRun() {
        var driver = DaemonCoreDriver(rules: Self.rules)
        var now = 1.0
        var delays: [Double] = []
        for _ in 0..<9 {
            driver.send(Self.ended("exec:vpn", ranFor: 0.5), at: now)
            let armed = driver.armed!.seconds
            delays.append(armed - now)
            driver.advance(to: armed)
            #expect(Self.restarts(driver.last) == ["exec:vpn"])
            now = armed + 0.5
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        driver.send(Self.ended("exec:vpn", ranFor: 45), at: now + 45)
        #expect(driver.armed!.seconds - (now + 45) == 1, "a run of 30 s or more starts the back-off over")
    }

    @Test func anObserverTheRulesNoLongerNeedTakesItsFactsWithItAndIsNotRestarted() {
        var driver = DaemonCoreDriver(rules: Self.rules)
        driver.send(
            .facts(FactUpdate(values: [.ssid: "Office", .bssid: "02:00:00:00:00:01"]), from: "exec:wifi"), at: 1)
        let effects = driver.send(.observerRetired(identity: "exec:wifi", name: "wifi"), at: 2)
        #expect(Self.unknownKeys(effects) == ["bssid", "ssid"])
        #expect(driver.armed == nil)
    }

    @Test func aRestartDueForAnEndedObserverShareTheDeadlineWithHolds() {
        var driver = DaemonCoreDriver(
            rules: """
                version: 1
                rules:
                  - name: held
                    when: { ssid: Office }
                    for: 10s
                    do:
                      - run: echo in
                """)
        driver.send(.facts(FactUpdate(values: [.ssid: "Office"]), from: "wifi"), at: 0)
        #expect(driver.armed == Instant(.seconds(10)))
        driver.send(Self.ended("netlink", ranFor: 1), at: 2)
        #expect(driver.armed == Instant(.seconds(3)), "the restart comes first")
        driver.advance(to: 3)
        #expect(Self.restarts(driver.last) == ["netlink"] && driver.armed == Instant(.seconds(10)))
        driver.advance(to: 10)
        #expect(driver.firings == ["held:enter@10"])
    }

    /// An observer that fails before reporting anything (an ICMP socket refused) still names the
    /// facts it owns and the rules waiting for them; it stays failed across restarts until it
    /// reports, and then it is not failed any more.
    @Test func anObserverThatNeverStartedIsFailedUntilItReports() {
        var driver = DaemonCoreDriver(rules: Self.rules)
        let owns: Set<FactKey> = [FactKey("interfaces.wg0")]
        driver.send(
            .observerEnded(identity: "probes", name: "probes", error: "no socket", ranFor: .zero, owns: owns), at: 1)
        var failure = driver.core.supervision.failures["probes"]
        #expect(failure?.facts == [FactKey("interfaces.wg0")])
        #expect(failure?.waitingRules == ["vpn-link"])
        #expect(failure?.attempts == 1)
        #expect(failure?.nextAttempt?.seconds == 2)

        driver.advance(to: 2)
        #expect(driver.core.supervision.failures["probes"]?.nextAttempt == nil, "starting again, not yet reporting")
        driver.send(
            .observerEnded(identity: "probes", name: "probes", error: "no socket", ranFor: .zero, owns: owns), at: 2.1)
        failure = driver.core.supervision.failures["probes"]
        #expect(failure?.attempts == 2)
        #expect(failure?.since.seconds == 1, "one series of failures, from the first")
        #expect(failure?.waitingRules == ["vpn-link"])

        driver.advance(to: 5)
        driver.send(.facts(FactUpdate(values: [FactKey("interfaces.wg0"): "up"]), from: "probes"), at: 5)
        #expect(driver.core.supervision.failures.isEmpty)
    }
}
