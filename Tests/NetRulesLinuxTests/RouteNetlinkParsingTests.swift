import NetRulesCore
import NetRulesSystem
import Testing

@testable import NetRulesLinux

@Suite(.timeLimit(.minutes(1)))
struct RouteNetlinkParsingTests {
    typealias F = RouteFixtures

    @Test func splitsADatagramAndDropsATruncatedTail() {
        let first = F.message(type: F.newLink, sequence: 7, body: F.link(index: 2, name: "eth0", flags: F.upFlags))
        let second = F.message(type: 3, sequence: 7, body: [0, 0, 0, 0])  // NLMSG_DONE
        let truncated = Array(first.prefix(20))
        let messages = NetlinkMessage.parse(first + second + truncated)
        #expect(messages.map(\.type) == [F.newLink, 3])
        #expect(messages[0].sequence == 7)
    }

    @Test func decodesALink() throws {
        let message = NetlinkMessage.parse(
            F.message(type: F.newLink, body: F.link(index: 3, name: "wlan0", flags: F.upFlags)))[0]
        guard case .newLink(let link) = RouteNetlinkEvent(message) else {
            Issue.record("not a link")
            return
        }
        #expect(link.index == 3)
        #expect(link.name == "wlan0")
        #expect(link.hardwareAddress?.description == "02:00:00:00:00:01")
        #expect(link.operationalState == 6)
        #expect(NetworkTable.isUp(link))
    }

    @Test func decodesIPv4AndIPv6Addresses() throws {
        let v4 = NetlinkMessage.parse(
            F.message(
                type: F.newAddress,
                body: F.address(
                    family: 2, index: 2, bytes: [192, 168, 1, 7], prefix: 24, broadcast: [192, 168, 1, 255])))[0]
        guard case .newAddress(let a) = RouteNetlinkEvent(v4) else {
            Issue.record("not an address")
            return
        }
        #expect("\(a.address)/\(a.prefixLength)" == "192.168.1.7/24")
        #expect(a.broadcast?.description == "192.168.1.255")
        #expect(IPAddress.netmask(prefixLength: a.prefixLength).description == "255.255.255.0")

        let bytes: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [2]
        let tentative = NetlinkMessage.parse(
            F.message(
                type: F.newAddress, body: F.address(family: 10, index: 2, bytes: bytes, prefix: 64, flags: 0x40)))[0]
        guard case .newAddress(let b) = RouteNetlinkEvent(tentative) else {
            Issue.record("not an address")
            return
        }
        #expect(b.address.description == "2001:db8::2")
        #expect(b.isTentativeOrFailed)
    }

    @Test func decodesADefaultRouteAndItsReplaceFlag() {
        let bytes = F.message(
            type: F.newRoute, flags: 0x100,
            body: F.route(family: 2, gateway: [10, 0, 0, 1], index: 2, metric: 100))
        guard case .newRoute(let route, let replace) = RouteNetlinkEvent(NetlinkMessage.parse(bytes)[0]) else {
            Issue.record("not a route")
            return
        }
        #expect(replace)
        #expect(route.isMainDefault)
        #expect(route.gateway?.description == "10.0.0.1")
        #expect(route.priority == 100)
        #expect(route.outputIndex == 2)
    }

    @Test func decodesANeighbour() {
        let bytes = F.message(
            type: F.newNeighbour,
            body: F.neighbour(index: 2, ip: [10, 0, 0, 1], mac: [0, 0x11, 0x22, 0x33, 0x44, 0x55]))
        guard case .newNeighbour(let neighbour) = RouteNetlinkEvent(NetlinkMessage.parse(bytes)[0]) else {
            Issue.record("not a neighbour")
            return
        }
        #expect(neighbour.isResolved)
        #expect(neighbour.linkAddress?.description == "00:11:22:33:44:55")
    }

    @Test func reportsAnErrorCode() {
        let bytes = F.message(type: 2, body: F.le(Int32(-16)) + Array(repeating: 0, count: 16))
        #expect(NetlinkMessage.parse(bytes)[0].errorCode == Errno.busy)
        // Found by the fuzzer: negating Int32.min trapped. No kernel sends it; it must not crash.
        let extreme = F.message(type: 2, body: F.le(Int32.min) + Array(repeating: 0, count: 16))
        #expect(NetlinkMessage.parse(extreme)[0].errorCode == Errno(rawValue: Int32.min))
    }
}
