import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesProbes

/// Real ICMP on loopback and in namespaces (root only: namespaces and raw sockets need it).
@Suite(.timeLimit(.minutes(3)), .enabled(if: isRoot, "ICMP namespace tests need root"))
struct ICMPPingerTests {
    @Test func repliesFromLoopbackManyTargetsOneSocket() async throws {
        let pinger = try ICMPPinger(loop: .testLoop)
        defer { pinger.close() }
        let targets = (1...200).map { IPAddress.v4(0x7F00_0000 | UInt32($0)) }
        let rtts = await withTaskGroup(of: Duration?.self) { group in
            for target in targets { group.addTask { try? await pinger.ping(target, timeout: .seconds(2)) } }
            return await group.reduce(into: [Duration?]()) { $0.append($1) }
        }
        #expect(rtts.count == 200)
        #expect(rtts.allSatisfy { $0 != nil && $0! > .zero && $0! < .seconds(2) })
    }

    @Test func ipv6LoopbackReplies() async throws {
        let network = try TestNamespace.create()
        defer { network.delete() }
        let pinger = try network.perform { try ICMPPinger(loop: .testLoop) }
        defer { pinger.close() }
        let rtt = try await pinger.ping(IPAddress("::1")!, timeout: .seconds(2))
        #expect(rtt != nil)
    }

    @Test(arguments: [false, true])
    func reachablePeerWithDatagramAllowedOrForbidden(allowDatagram: Bool) async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        if allowDatagram { try network.client.sysctl("net.ipv4.ping_group_range", "0 2147483647") }
        let pinger = try network.client.perform { try ICMPPinger(loop: .testLoop) }
        defer { pinger.close() }
        #expect(pinger.socketKind(v6: false) == (allowDatagram ? "datagram" : "raw"))
        let rtt = try await pinger.ping(IPAddress(TestNetwork.serverAddress)!, timeout: .seconds(2))
        #expect(rtt != nil)
    }

    @Test func silentPeerTimesOutOnTime() async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        try network.server.ip("route", "add", "blackhole", TestNetwork.clientAddress)
        let pinger = try network.client.perform { try ICMPPinger(loop: .testLoop) }
        defer { pinger.close() }
        let clock = ContinuousClock()
        let started = clock.now
        let rtt = try await pinger.ping(IPAddress(TestNetwork.serverAddress)!, timeout: .milliseconds(300))
        #expect(rtt == nil)
        #expect(clock.now - started >= .milliseconds(290) && clock.now - started < .milliseconds(1500))
    }

    @Test func blackholeRouteFailsToSend() async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        try network.client.ip("route", "add", "blackhole", "10.99.0.0/16")
        let pinger = try network.client.perform { try ICMPPinger(loop: .testLoop) }
        defer { pinger.close() }
        let error = await #expect(throws: ICMPError.self) {
            try await pinger.ping(IPAddress("10.99.0.1")!, timeout: .milliseconds(300))
        }
        #expect(error?.code == .sendFailed)
    }

    @Test func linkTakenDownMidProbeLosesTheRest() async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        let pinger = try network.client.perform { try ICMPPinger(loop: .testLoop) }
        defer { pinger.close() }
        let peer = IPAddress(TestNetwork.serverAddress)!
        #expect(try await pinger.ping(peer, timeout: .seconds(1)) != nil)
        try network.server.ip("link", "set", "nrs0", "down")
        // Carrier is lost, so the reply cannot come: either a timeout or a send error, never a reply.
        let afterDown: Duration?? = try? await pinger.ping(peer, timeout: .milliseconds(300))
        #expect(afterDown == nil || afterDown! == nil)
        try network.server.ip("link", "set", "nrs0", "up")
    }

    @Test func ignoresRepliesMeantForAnotherPinger() async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        let first = try network.client.perform { try ICMPPinger(loop: .testLoop) }
        let second = try network.client.perform { try ICMPPinger(loop: .testLoop) }
        defer { first.close(); second.close() }
        let peer = IPAddress(TestNetwork.serverAddress)!
        async let a = first.ping(peer, timeout: .seconds(1))
        async let b = second.ping(peer, timeout: .seconds(1))
        let (ra, rb) = try await (a, b)
        // Both raw sockets see both replies; each must take only its own (no crash, no double resume).
        #expect(ra != nil && rb != nil)
    }
}
