import Glibc
import NetRulesCore
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesActions

/// Webhook requests run concurrently within limits (issue 36): at most 8 to one host (scheme, host
/// and port), 64 in all, while one rule's deliveries arrive in the order its firings made them.
/// Loopback servers that take 50 ms to answer count what is under way at once.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct WebhookConcurrencyTests {
    /// What the servers saw: requests under way now and at most, per server and across them, and
    /// each rule's bodies in the order they arrived.
    final class Tally: Sendable {
        private struct State {
            var running: [UInt16: Int] = [:]
            var peak: [UInt16: Int] = [:]
            var runningTotal = 0
            var peakTotal = 0
            var arrivals: [String: [String]] = [:]
        }
        private let state = Mutex(State())

        var peakTotal: Int { state.withLock { $0.peakTotal } }
        func peak(of server: TestHTTPServer) -> Int { state.withLock { $0.peak[server.port, default: 0] } }
        var arrivals: [String: [String]] { state.withLock { $0.arrivals } }

        /// A server that records its request, answers 200 after `delay`, and counts meanwhile.
        func server(delay: Duration = .milliseconds(50)) throws -> TestHTTPServer {
            let port = Mutex<UInt16>(0)
            let server = try TestHTTPServer { [self] request in
                let me = port.withLock { $0 }
                let body = request.text
                state.withLock { state in
                    state.running[me, default: 0] += 1
                    state.peak[me] = max(state.peak[me, default: 0], state.running[me, default: 0])
                    state.runningTotal += 1
                    state.peakTotal = max(state.peakTotal, state.runningTotal)
                    if let rule = body.split(separator: " ").first {
                        state.arrivals[String(rule), default: []].append(body)
                    }
                }
                let (seconds, attoseconds) = delay.components
                usleep(useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
                state.withLock { state in
                    state.running[me, default: 0] -= 1
                    state.runningTotal -= 1
                }
                return .status(200)
            }
            port.withLock { $0 = server.port }
            return server
        }
    }

    /// A firing of `rule` whose `count` webhooks post "<rule> <edge> <n>" to `server`.
    static func firing(
        _ rule: String, _ edge: Edge = .enter, count: Int, to server: TestHTTPServer, online: Bool = false
    ) -> Firing {
        let actions = (0..<count).map { n in
            ActionSpec(
                WebhookAction(
                    url: Fixtures.template(server.url("/hook")), body: .text(Fixtures.template("\(rule) \(edge) \(n)")),
                    attempts: 1, waitsForOnline: online))
        }
        return Fixtures.firing(rule: rule, edge: edge, actions: actions)
    }

    private func succeeded(_ result: ActionResult) -> Bool {
        guard case .succeeded = result.outcome else { return false }
        return true
    }

    @Test func atMostEightRequestsToOneHostAtOnce() async throws {
        let tally = Tally()
        let server = try tally.server()
        defer { server.stop() }
        let harness = RunnerHarness(concurrency: ActionRunner.defaultConcurrency)
        for n in 0..<24 { await harness.runner.submit(Self.firing("r\(n)", count: 2, to: server), wallTime: "t") }
        let results = await harness.settledResults(expecting: 48)
        #expect(results.filter(succeeded).count == 48, "\(results.filter { !succeeded($0) })")
        #expect(server.requests.count == 48)
        // 24 rules' firings run at once; only the requests are held back.
        #expect(tally.peak(of: server) == DeliverySlots.defaultPerHost, "peak: \(tally.peak(of: server))")
    }

    @Test func eachHostHasItsOwnLimit() async throws {
        let tally = Tally()
        let (first, second) = (try tally.server(), try tally.server())
        defer {
            first.stop()
            second.stop()
        }
        let harness = RunnerHarness(concurrency: ActionRunner.defaultConcurrency)
        for n in 0..<16 {
            await harness.runner.submit(Self.firing("a\(n)", count: 2, to: first), wallTime: "t")
            await harness.runner.submit(Self.firing("b\(n)", count: 2, to: second), wallTime: "t")
        }
        let results = await harness.settledResults(expecting: 64)
        #expect(results.filter(succeeded).count == 64)
        #expect(tally.peak(of: first) <= 8 && tally.peak(of: second) <= 8)
        #expect(tally.peakTotal > 8, "the second host waited for the first: peak \(tally.peakTotal)")
    }

    /// Two firings of each rule (enter, then exit while enter runs), three webhooks each: every
    /// rule's six requests arrive in the order they were made, whatever other rules do meanwhile.
    @Test func oneRulesDeliveriesArriveInOrder() async throws {
        let tally = Tally()
        let server = try tally.server(delay: .milliseconds(10))
        defer { server.stop() }
        let harness = RunnerHarness(concurrency: ActionRunner.defaultConcurrency)
        for n in 0..<12 {
            await harness.runner.submit(Self.firing("r\(n)", .enter, count: 3, to: server), wallTime: "t")
            await harness.runner.submit(Self.firing("r\(n)", .exit, count: 3, to: server), wallTime: "t")
        }
        let results = await harness.settledResults(expecting: 72)
        #expect(results.filter(succeeded).count == 72)
        let arrivals = tally.arrivals
        for n in 0..<12 {
            let expected = [Edge.enter, .exit].flatMap { edge in (0..<3).map { "r\(n) \(edge) \($0)" } }
            #expect(arrivals["r\(n)"] == expected)
        }
        #expect(tally.peak(of: server) > 1, "nothing ran at once")
    }

    /// Deliveries held for `online` go when it comes, other rules' at once, but each rule's one
    /// at a time in the order they were stored.
    @Test func aRulesHeldDeliveriesGoInOrderWhenOnline() async throws {
        let tally = Tally()
        let server = try tally.server(delay: .milliseconds(10))
        defer { server.stop() }
        let harness = RunnerHarness(concurrency: ActionRunner.defaultConcurrency)
        await harness.runner.connectivityChanged(to: "portal")
        for n in 0..<6 {
            await harness.runner.submit(Self.firing("r\(n)", .enter, count: 3, to: server, online: true), wallTime: "t")
            await harness.runner.submit(Self.firing("r\(n)", .exit, count: 3, to: server, online: true), wallTime: "t")
        }
        _ = await harness.settledResults(expecting: 36)
        #expect(await harness.runner.parkedDeliveries.count == 36)
        await harness.runner.connectivityChanged(to: "online")
        let all = await harness.settledResults(expecting: 72)
        #expect(all.suffix(36).allSatisfy { $0.isSuccess })
        let arrivals = tally.arrivals
        for n in 0..<6 {
            let expected = [Edge.enter, .exit].flatMap { edge in (0..<3).map { "r\(n) \(edge) \($0)" } }
            #expect(arrivals["r\(n)"] == expected)
        }
        #expect(tally.peak(of: server) > 1, "nothing ran at once")
    }

    /// Before and after: how many requests to one host were under way at once, unbounded (only
    /// the runner's 32 concurrent firings) and with the default limits.
    @Test(.enabled(if: getenv("NETRULES_BENCH") != nil, "set NETRULES_BENCH=1 to measure"))
    func measureRequestsInFlight() async throws {
        for limits in [
            (perHost: 1_000, total: 1_000), (perHost: DeliverySlots.defaultPerHost, total: DeliverySlots.defaultTotal),
        ] {
            let tally = Tally()
            let server = try tally.server()
            defer { server.stop() }
            let state = TemporaryDirectory()
            let runner = ActionRunner(
                loop: .testLoop, stateDirectory: state.file("state"), environment: [:], webhookConcurrency: limits)
            var results = runner.results.makeAsyncIterator()
            let clock = ContinuousClock()
            let started = clock.now
            for n in 0..<100 { await runner.submit(Self.firing("r\(n)", count: 1, to: server), wallTime: "t") }
            var delivered = 0
            for _ in 0..<100 where await results.next()?.isSuccess == true { delivered += 1 }
            let elapsed = clock.now - started
            await runner.stop()
            let peak = tally.peak(of: server)
            let line = "bench webhook concurrency per host \(limits.perHost): 100 deliveries (50 ms each) in "
            print(line + "\(elapsed), \(delivered) delivered, at most \(peak) at once")
            #expect(delivered == 100)
        }
    }
}
