import Glibc
import NetRulesCore
import NetRulesHTTP
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// Webhook deliveries reuse their HTTPS connection (issue 36), and only where it was verified
/// for the same pin and CA file: an HTTPS server on loopback (a CA of the test's, `ca_file`) whose
/// TLS connections are counted by the HTTP server behind it, one upstream connection each.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct WebhookConnectionReuseTests {
    typealias Setup = PinnedHTTPSServer

    /// A webhook's trust settings; pins named by key ("B" is the server's).
    struct Trust: Sendable, CustomTestStringConvertible {
        var pins: [String]
        var usesCAFile = true
        var testDescription: String { "pins \(pins) \(usesCAFile ? "with" : "without") ca_file" }
    }

    private func failure(_ result: ActionResult?) -> ActionError? {
        guard case .failed(let error)? = result?.outcome else { return nil }
        return error
    }

    private func succeeded(_ result: ActionResult?) -> Bool {
        guard case .succeeded? = result?.outcome else { return false }
        return true
    }

    @Test func twentyDeliveriesToOneServerShareOneTLSConnection() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        for n in 1...20 {
            let result = await setup.deliver(Trust(pins: ["B"]), count: n)
            #expect(succeeded(result), "delivery \(n): \(String(describing: result))")
        }
        #expect(setup.http.requests.count == 20)
        #expect(setup.http.connectionCount == 1, "TLS connections: \(setup.http.connectionCount)")
    }

    /// The first delivery leaves a live connection to B; the second, trusted differently, must make
    /// its own and so fail the check B cannot pass; the third, trusted like the first, reuses the
    /// first's connection, which shows it was there to be (wrongly) reused.
    @Test(arguments: [
        (Trust(pins: ["B"]), Trust(pins: ["A"]), "the server's public key matches none of the webhook's pins"),
        (Trust(pins: []), Trust(pins: ["A"]), "the server's public key matches none of the webhook's pins"),
        (Trust(pins: ["A", "B"]), Trust(pins: ["A"]), "the server's public key matches none of the webhook's pins"),
        (Trust(pins: ["B"]), Trust(pins: ["B"], usesCAFile: false), "not signed by the system's CAs"),
        (Trust(pins: []), Trust(pins: [], usesCAFile: false), "not signed by the system's CAs"),
    ])
    func aConnectionIsNeverReusedUnderOtherTrust(first: Trust, second: Trust, failure expected: String) async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let made = await setup.deliver(first, count: 1)
        #expect(succeeded(made), "\(String(describing: made))")
        let refused = await setup.deliver(second, count: 2)
        let error = try #require(failure(refused), "reused? \(String(describing: refused))")
        #expect(error.message.contains(expected), "\(error)")
        #expect(setup.http.requests.count == 1, "the server received \(setup.http.requests.count) requests")
        let connections = setup.http.connectionCount
        let reused = await setup.deliver(first, count: 3)
        #expect(succeeded(reused), "\(String(describing: reused))")
        #expect(setup.http.requests.count == 2)
        #expect(setup.http.connectionCount == connections, "the first connection was not kept")
    }

    /// Deliveries at once, on several threads (the shares' locks at work): each running one has
    /// a connection of its own, and the connections are reused by those that follow.
    @Test func concurrentDeliveriesAllArrive() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let webhook = setup.webhook("/hook", pins: [setup.serverPin], caFile: setup.authority.certificatePath)
        for n in 0..<24 {
            await setup.harness.runner.submit(
                Fixtures.firing(rule: "r\(n)", actions: [ActionSpec(webhook)]), wallTime: "t")
        }
        let results = await setup.harness.settledResults(expecting: 24)
        #expect(results.filter(succeeded).count == 24, "\(results.filter { !succeeded($0) })")
        #expect(setup.http.requests.count == 24)
        #expect(setup.http.connectionCount <= 8, "TLS connections: \(setup.http.connectionCount)")
    }

    /// A kept connection the server has closed (its process ended) is replaced by a fresh one,
    /// not reported as a failed delivery.
    @Test func aKeptConnectionTheServerClosedIsReplaced() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let first = await setup.deliver(Trust(pins: ["B"]), count: 1)
        #expect(succeeded(first), "\(String(describing: first))")
        setup.server.stop()
        let restarted = try TestTLSServer(
            TestCertificate(
                keyPath: setup.harness.directory.file("b.key"), certificatePath: setup.harness.directory.file("b.pem")),
            address: "127.0.0.1", port: setup.server.port, in: nil, forwardingTo: setup.http.port)
        defer { restarted.stop() }
        let second = await setup.deliver(Trust(pins: ["B"]), count: 2)
        #expect(succeeded(second), "\(String(describing: second))")
        #expect(setup.http.requests.count == 2)
        #expect(setup.http.connectionCount == 2)
    }

    /// Before and after: 200 deliveries one after another, without and with reuse.
    @Test(.enabled(if: getenv("NETRULES_BENCH") != nil, "set NETRULES_BENCH=1 to measure"))
    func measureTwoHundredDeliveries() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        for reuses in [false, true] {
            let state = TemporaryDirectory()
            let runner = ActionRunner(
                loop: .testLoop, stateDirectory: state.file("state"), httpClient: HTTPClient(reusesConnections: reuses),
                concurrency: 1, environment: [:])
            let webhook = setup.webhook("/hook", pins: [setup.serverPin], caFile: setup.authority.certificatePath)
            var results = runner.results.makeAsyncIterator()
            let connections = setup.http.connectionCount
            var delivered = 0
            let clock = ContinuousClock()
            let started = clock.now
            for n in 0..<200 {
                await runner.submit(Fixtures.firing(rule: "r\(n)", actions: [ActionSpec(webhook)]), wallTime: "t")
                if let result = await results.next(), result.isSuccess { delivered += 1 }
            }
            let elapsed = clock.now - started
            await runner.stop()
            print(
                "bench webhook reuse=\(reuses): 200 HTTPS deliveries in \(elapsed), \(delivered) delivered, "
                    + "\(setup.http.connectionCount - connections) TLS connections")
            #expect(delivered == 200)
        }
    }
}

extension PinnedHTTPSServer {
    /// Delivers one webhook and waits for its result (the `count`th of the harness).
    fileprivate func deliver(_ trust: WebhookConnectionReuseTests.Trust, count: Int) async -> ActionResult? {
        let webhook = webhook(
            "/hook", pins: trust.pins.map { $0 == "B" ? serverPin : otherPin },
            caFile: trust.usesCAFile ? authority.certificatePath : nil)
        await harness.runner.submit(Fixtures.firing(rule: "r\(count)", actions: [ActionSpec(webhook)]), wallTime: "t")
        return await harness.settledResults(expecting: count).last
    }
}
