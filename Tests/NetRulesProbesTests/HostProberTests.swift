import NetRulesCore
import NetRulesHTTP
import NetRulesTesting
import Testing

@testable import NetRulesProbes

@Suite(.timeLimit(.minutes(3)), .enabled(if: isRoot, "host probe namespace tests need root"))
struct HostProberTests {
    static func definition(_ name: String, _ address: String, port: Int? = nil) -> HostDefinition {
        HostDefinition(
            name: name, address: address, port: port, interval: .milliseconds(100),
            timeout: .milliseconds(150), tries: 2)
    }

    @Test func reportsEachHostOnceThenOnlyChangesAndFollowsAFlap() async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        try network.client.ip("route", "add", "blackhole", "10.99.0.0/16")
        let web = try TestHTTPServer(address: TestNetwork.serverAddress, in: network.server) { _ in
            .response(status: 204)
        }
        defer { web.stop() }
        let pinger = try network.client.perform { try ICMPPinger(loop: .testLoop) }
        defer { pinger.close() }
        let hosts = [
            Self.definition("peer", TestNetwork.serverAddress),
            Self.definition("peer", "10.99.0.9"),  // a second rule's copy of the name: shares the first prober
            Self.definition("gone", "10.99.0.1"),
            Self.definition("web", TestNetwork.serverAddress, port: Int(web.port)),
            Self.definition("closed", TestNetwork.serverAddress, port: 9),
        ]
        let prober = HostProber(
            hosts: hosts, loop: .testLoop, clock: ContinuousClock(), pinger: pinger, executor: network.client.executor)
        #expect(prober.hosts.map(\.name) == ["peer", "gone", "web", "closed"])
        let (updates, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
        let task = Task { try await prober.run(reporting: FactReporter(continuation)) }
        defer { task.cancel() }
        var iterator = updates.makeAsyncIterator()

        var first: [FactKey: FactState] = [:]
        while first.count < 4, let update = await iterator.next() { first.merge(update.changes) { $1 } }
        #expect(first[.host("peer")] == .value("reachable"))
        #expect(first[.host("gone")] == .value("unreachable"))
        #expect(first[.host("web")] == .value("reachable"))
        #expect(first[.host("closed")] == .value("unreachable"))

        try network.server.ip("link", "set", "nrs0", "down")
        let down = await iterator.next()
        #expect(down?.changes.keys.allSatisfy { $0 == .host("peer") || $0 == .host("web") } == true)
        try network.server.ip("link", "set", "nrs0", "up")
        var back: [FactKey: FactState] = down?.changes ?? [:]
        while back.values.contains(.value("unreachable")), let update = await iterator.next() {
            back.merge(update.changes) { $1 }
        }
        #expect(back[.host("peer")] == .value("reachable"))
    }

    @Test func hungResolverIsAbandonedAfterItsTimeout() async {
        let hung = BlockingExecutor { _ in }  // never runs the lookup: a resolver that hangs forever
        let clock = ContinuousClock()
        let started = clock.now
        let result = await Resolver.resolve(
            "intranet.example", timeout: .milliseconds(200), on: .testLoop, executor: hung)
        #expect(result == .failure(.timeout(.milliseconds(200))))
        // Loose bound: a guard against hanging, on a shared 2-core machine.
        #expect(clock.now - started < .seconds(3))
    }
}
