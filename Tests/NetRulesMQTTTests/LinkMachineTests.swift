import NetRulesCore
import NetRulesMQTT
import Testing

/// The link's decisions walked on virtual time, without a broker: every failure backs off, every
/// phase ends in a bounded wait, a roam replaces the connection at once.
@Suite(.timeLimit(.minutes(1)))
struct LinkMachineTests {
    static let broker = "mqtt://198.51.100.7:1883"

    /// A machine and the attempts it started, driven as the link would drive it.
    struct Driver {
        var machine: LinkMachine
        var now = Instant.zero
        var attempts: [Instant] = []
        var logs: [String] = []
        var drops = 0

        init(isLocal: Bool = false) {
            machine = LinkMachine(broker: LinkMachineTests.broker, isLocal: isLocal)
        }

        @discardableResult
        mutating func handle(_ event: LinkMachine.Event) -> [LinkMachine.Effect] {
            let effects = machine.handle(event, at: now)
            for effect in effects {
                switch effect {
                case .connect: attempts.append(now)
                case .log(let line, _): logs.append(line)
                case .drop: drops += 1
                case .beginSession, .disconnect: break
                }
            }
            // The wedge's cause was a deadline left in the past: none ever is.
            if let deadline = machine.nextDeadline { #expect(deadline > now, "\(machine.phase) at \(now)") }
            return effects
        }

        /// Moves the clock to the next deadline (or by `limit`), ticking there.
        mutating func advance(by limit: Duration) {
            let target = now + limit
            while let deadline = machine.nextDeadline, deadline <= target {
                now = deadline
                handle(.tick)
            }
            now = target
        }

        /// Runs `until` on virtual time; each attempt that starts is answered by `answer`.
        mutating func run(for duration: Duration, answer: (inout Driver) -> Void) {
            let end = now + duration
            while now < end {
                if case .opening = machine.phase { answer(&self) }
                guard let deadline = machine.nextDeadline, deadline <= end else { break }
                now = deadline
                handle(.tick)
            }
            now = end
        }
    }

    @Test func aBrokerThatClosesBeforeCONNACKIsTriedAtMostEightTimesInAMinuteAndSaysWhy() {
        var driver = Driver()
        driver.handle(.start)
        driver.run(for: .seconds(60)) { d in
            d.handle(.opened(localAddress: IPAddress("192.0.2.10")))
            d.handle(.closed("The connection was lost."))
        }
        // 1, 2, 4, 8, 16, 32 s apart: at 0, 1, 3, 7, 15 and 31 s.
        #expect(driver.attempts.map(\.offset) == [0, 1, 3, 7, 15, 31].map { .seconds($0) })
        #expect(driver.attempts.count <= 8)
        #expect(
            driver.logs == [
                "mqtt: the broker \(Self.broker) closed the connection before accepting it (The connection was lost.); "
                    + "retrying in 1 s"
            ])
        guard case .waiting(_, let reason, let tries) = driver.machine.phase else {
            Issue.record("not waiting: \(driver.machine.phase)")
            return
        }
        #expect(reason.contains("closed the connection before accepting it"))
        #expect(tries == 6)
        // Past a minute, once a minute.
        driver.run(for: .seconds(300)) { d in
            d.handle(.opened(localAddress: nil))
            d.handle(.closed("The connection was lost."))
        }
        let gaps = zip(driver.attempts.dropFirst(), driver.attempts).map { $0 - $1 }
        #expect(gaps.suffix(3).allSatisfy { $0 == .seconds(60) }, "\(gaps)")
    }

    @Test func aLocalBrokerThatIsNotThereIsTriedEverySecondButOneThatRefusesBacksOff() {
        var absent = Driver(isLocal: true)
        absent.handle(.start)
        absent.run(for: .milliseconds(9500)) {
            $0.handle(.openFailed(.unreachable("cannot connect: Connection refused")))
        }
        #expect(absent.attempts.map(\.offset) == (0..<10).map { .seconds($0) })

        var refusing = Driver(isLocal: true)
        refusing.handle(.start)
        refusing.run(for: .seconds(60)) { d in
            d.handle(.opened(localAddress: nil))
            d.handle(.refused("Not authorized"))
        }
        #expect(refusing.attempts.count == 6)
        #expect(refusing.logs.count == 1, "the same refusal is logged once: \(refusing.logs)")
    }

    @Test func aTLSFailureBacksOffTheSameWay() {
        var driver = Driver()
        driver.handle(.start)
        driver.run(for: .seconds(60)) { $0.handle(.openFailed(.rejected("cannot connect: the TLS handshake failed"))) }
        #expect(driver.attempts.count == 6)
    }

    @Test func aCONNECTWithoutCONNACKFailsAfterTenSecondsAndAnOpenThatHangsAfterThirty() {
        var driver = Driver()
        driver.handle(.start)
        driver.handle(.opened(localAddress: nil))
        driver.advance(by: .seconds(10))
        guard case .waiting(_, let reason, _) = driver.machine.phase else {
            Issue.record("\(driver.machine.phase)")
            return
        }
        #expect(reason == "the broker \(Self.broker) did not accept the connection within 10 s")
        #expect(driver.drops == 1)

        var hanging = Driver()
        hanging.handle(.start)
        hanging.advance(by: .seconds(30))
        guard case .waiting(_, let why, _) = hanging.machine.phase else {
            Issue.record("\(hanging.machine.phase)")
            return
        }
        #expect(why == "cannot connect to \(Self.broker): no answer within 30 s")
    }

    @Test func withoutARouteNothingIsTriedAndTheRoutesReturnTriesAtOnce() {
        var driver = Driver()
        driver.handle(.start)
        driver.handle(.openFailed(.unreachable("cannot connect: Network is unreachable")))
        driver.handle(.route(available: false))
        #expect(driver.machine.phase == .noRoute)
        #expect(driver.machine.nextDeadline == nil)
        driver.advance(by: .seconds(600))
        #expect(driver.attempts.count == 1)
        driver.handle(.route(available: true))
        #expect(driver.attempts.count == 2)
        #expect(driver.attempts.last == driver.now)
    }

    @Test func aNetworkChangeStartsANewStreakAndTriesAtOnce() {
        var driver = Driver()
        driver.handle(.start)
        driver.run(for: .seconds(40)) { d in
            d.handle(.opened(localAddress: nil))
            d.handle(.refused("Not authorized"))
        }
        #expect(driver.machine.tries == 6)
        driver.handle(.networkChanged)
        #expect(driver.attempts.last == driver.now)
        #expect(driver.machine.tries == 0)
        driver.handle(.opened(localAddress: nil))
        driver.handle(.accepted)
        #expect(driver.machine.isConnected)
    }

    @Test func aRoamReplacesTheConnectionAtOnceAndAnAddressStillHereDoesNot() {
        var driver = Driver()
        driver.handle(.start)
        driver.handle(.opened(localAddress: IPAddress("192.0.2.10")))
        #expect(driver.handle(.accepted).contains(.beginSession))
        driver.now = driver.now + .seconds(100)
        #expect(driver.handle(.addresses([IPAddress("192.0.2.10")!, IPAddress("2001:db8::1")!])).isEmpty)
        let effects = driver.handle(.addresses([IPAddress("203.0.113.5")!]))
        #expect(effects.first == .drop)
        #expect(effects.contains(.connect))
        #expect(driver.attempts.last == driver.now)
        #expect(
            driver.logs.last
                == "mqtt: the network changed (the address 192.0.2.10 is gone): reconnecting to \(Self.broker)")

        driver.handle(.opened(localAddress: IPAddress("203.0.113.5")))
        driver.handle(.accepted)
        let replaced = driver.handle(.routeReplaced)
        #expect(replaced.first == .drop && replaced.contains(.connect))
    }

    @Test func aBrokerOnThisMachineIgnoresAddressesAndRoutesReplaced() {
        var driver = Driver(isLocal: true)
        driver.handle(.start)
        driver.handle(.opened(localAddress: IPAddress("127.0.0.1")))
        driver.handle(.accepted)
        #expect(driver.handle(.addresses([])).isEmpty)
        #expect(driver.handle(.routeReplaced).isEmpty)
        #expect(driver.machine.isConnected)
    }

    @Test func aMessageTheBrokerNeverAcknowledgesCountsAsALostConnectionAfter30Seconds() {
        var driver = Driver()
        driver.handle(.start)
        driver.handle(.opened(localAddress: nil))
        driver.handle(.accepted)
        #expect(driver.machine.nextDeadline == nil, "an idle connection has no deadline of the machine's")
        driver.handle(.sent(1))
        driver.now = driver.now + .seconds(5)
        driver.handle(.sent(2))
        driver.handle(.acknowledged(2))
        driver.advance(by: .seconds(24))
        #expect(driver.machine.isConnected)
        driver.advance(by: .seconds(1))
        guard case .waiting(let at, let reason, _) = driver.machine.phase else {
            Issue.record("\(driver.machine.phase)")
            return
        }
        #expect(reason.hasSuffix("the broker did not acknowledge a message within 30 s"))
        #expect(at - driver.now == .seconds(1))
        #expect(driver.drops == 1)
    }

    @Test func aConnectionLostSoonAfterItWasAcceptedKeepsBackingOff() {
        var driver = Driver()
        driver.handle(.start)
        driver.run(for: .seconds(60)) { d in
            d.handle(.opened(localAddress: nil))
            d.handle(.accepted)
            d.handle(.closed("Session taken over"))
        }
        #expect(driver.attempts.count == 6, "\(driver.attempts)")

        // One that lasted starts again from a second.
        var lasting = Driver()
        lasting.handle(.start)
        lasting.handle(.opened(localAddress: nil))
        lasting.handle(.accepted)
        lasting.now = lasting.now + .seconds(3600)
        lasting.handle(.closed("the broker stopped answering"))
        guard case .waiting(let at, _, let tries) = lasting.machine.phase else { return }
        #expect(at - lasting.now == .seconds(1))
        #expect(tries == 1)
    }

    @Test func stopDisconnectsAConnectionAndDropsAnAttempt() {
        var connected = Driver()
        connected.handle(.start)
        connected.handle(.opened(localAddress: nil))
        connected.handle(.accepted)
        #expect(connected.handle(.stop) == [.disconnect])
        #expect(connected.handle(.tick).isEmpty)
        #expect(connected.machine.nextDeadline == nil)

        var opening = Driver()
        opening.handle(.start)
        #expect(opening.handle(.stop) == [.drop])
        #expect(opening.handle(.opened(localAddress: nil)).isEmpty)
    }

    /// Any order of events: the machine never asks for a deadline in the past and never starts two
    /// attempts without an answer to the first.
    @Test(arguments: 0..<20)
    func randomEventsNeverLeaveADeadlineInThePast(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var driver = Driver()
        driver.handle(.start)
        let events: [LinkMachine.Event] = [
            .opened(localAddress: IPAddress("192.0.2.10")), .openFailed(.rejected("x")),
            .openFailed(.unreachable("y")), .accepted, .refused("z"), .closed("w"), .route(available: false),
            .route(available: true), .networkChanged, .addresses([]), .routeReplaced, .sent(1), .acknowledged(1),
            .tick,
        ]
        for _ in 0..<500 {
            driver.now = driver.now + .milliseconds(Int64.random(in: 0...3000, using: &generator))
            // As the link does: what is due is ticked before anything else is handled.
            if let deadline = driver.machine.nextDeadline, deadline <= driver.now { driver.handle(.tick) }
            let wasOpening: Bool = if case .opening = driver.machine.phase { true } else { false }
            let effects = driver.handle(events.randomElement(using: &generator)!)
            if wasOpening, case .opening = driver.machine.phase {
                #expect(!effects.contains(.connect) || effects.contains(.drop))
            }
        }
    }
}

/// A small deterministic generator (SplitMix64) for the random walk.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
