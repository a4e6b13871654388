import NetRulesCore
import Synchronization
import Testing

@testable import NetRulesProbes

/// The observer's schedule on a manual clock: no test here sleeps.
@Suite(.timeLimit(.minutes(1)))
struct PortalProbeScheduleTests {
    /// Returns scripted verdicts in order (the last one repeats) and counts the calls.
    final class Script: Sendable {
        let verdicts: Mutex<[PortalVerdict.Connectivity]>
        let calls = Atomic<Int>(0)
        init(_ verdicts: [PortalVerdict.Connectivity]) { self.verdicts = Mutex(verdicts) }

        func next() -> PortalVerdict {
            calls.add(1, ordering: .relaxed)
            let connectivity = verdicts.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
            return PortalVerdict(
                connectivity: connectivity, portalURL: connectivity == .portal ? "http://login.test/" : nil,
                decidingProbe: nil, evidence: [], duration: .zero)
        }
    }

    @Test func backsOffWhileNotOnlineThenRelaxesAndRechecksOnDemand() async throws {
        let clock = ManualClock()
        let script = Script([.portal, .offline, .offline, .online])
        let probe = PortalProbe(settings: ConnectivitySettings(probes: [], onlineInterval: .seconds(300)), clock: clock)
        {
            script.next()
        }
        let (updates, continuation) = AsyncStream.makeStream(of: FactUpdate.self, bufferingPolicy: .unbounded)
        let task = Task { try await probe.run(reporting: FactReporter(continuation)) }
        defer { task.cancel() }
        var sleeps = clock.sleeps.makeAsyncIterator()
        var facts = updates.makeAsyncIterator()

        #expect(await facts.next() == FactUpdate(values: [.connectivity: "portal", .portalURL: "http://login.test/"]))
        #expect(await sleeps.next() == .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(await facts.next() == FactUpdate(values: [.connectivity: "offline", .portalURL: nil]))
        #expect(await sleeps.next() == .seconds(2))
        clock.advance(by: .seconds(2))
        #expect(await sleeps.next() == .seconds(4))  // still offline: nothing reported, longer wait
        clock.advance(by: .seconds(4))
        #expect(await facts.next() == FactUpdate(values: [.connectivity: "online", .portalURL: nil]))
        #expect(await sleeps.next() == .seconds(300))
        #expect(script.calls.load(ordering: .relaxed) == 4)

        script.verdicts.withLock { $0 = [.offline] }
        probe.recheck()  // a network change: probe now, without waiting for the 300 s
        #expect(await facts.next() == FactUpdate(values: [.connectivity: "offline", .portalURL: nil]))
        #expect(await sleeps.next() == .seconds(1))  // the backoff restarted
        #expect(script.calls.load(ordering: .relaxed) == 5)
    }
}
