import NetRulesCore
import Testing

@testable import NetRulesLinux

@Suite(.timeLimit(.minutes(1)))
struct NetworkTableTests {
    typealias F = RouteFixtures

    private func event(_ type: UInt16, flags: UInt16 = 0, _ body: [UInt8]) -> RouteNetlinkEvent {
        RouteNetlinkEvent(NetlinkMessage.parse(F.message(type: type, flags: flags, body: body))[0])!
    }

    /// lo and eth0 up, 192.168.1.7/24 and fe80::1 on eth0, loopback address on lo.
    private func baseTable() -> NetworkTable {
        var table = NetworkTable()
        table.apply(event(F.newLink, F.link(index: 1, name: "lo", flags: F.upFlags | 0x8)))
        table.apply(event(F.newLink, F.link(index: 2, name: "eth0", flags: F.upFlags)))
        table.apply(event(F.newAddress, F.address(family: 2, index: 1, bytes: [127, 0, 0, 1], prefix: 8)))
        table.apply(event(F.newAddress, F.address(family: 2, index: 2, bytes: [192, 168, 1, 7], prefix: 24)))
        let linkLocal: [UInt8] = [0xfe, 0x80] + Array(repeating: 0, count: 13) + [1]
        table.apply(event(F.newAddress, F.address(family: 10, index: 2, bytes: linkLocal, prefix: 64)))
        return table
    }

    @Test func ipListsUsableAddressesOnly() {
        let facts = baseTable().facts(wireless: [])
        #expect(facts[.ip] == .value(.list(["192.168.1.7/24"])))
        #expect(facts[.interfaceState("eth0")] == .text("up"))
        #expect(facts[.gateway] == .absent)
        #expect(facts[.network] == .text("none"))
    }

    @Test func lowestMetricDefaultRouteWinsAndNamesTheNetwork() {
        var table = baseTable()
        table.apply(event(F.newRoute, F.route(family: 2, gateway: [192, 168, 1, 1], index: 2, metric: 600)))
        table.apply(event(F.newRoute, F.route(family: 2, gateway: [192, 168, 1, 254], index: 2, metric: 100)))
        table.apply(event(F.newRoute, F.route(family: 2, gateway: [10, 0, 0, 1], index: 2, metric: 0, table: 100)))
        table.apply(
            event(F.newNeighbour, F.neighbour(index: 2, ip: [192, 168, 1, 254], mac: [0xa, 0xb, 0xc, 0xd, 0xe, 0xf])))
        var facts = table.facts(wireless: ["eth0"])
        #expect(facts[.gateway] == .text("192.168.1.254"))
        #expect(facts[.gatewayMAC] == .text("0a:0b:0c:0d:0e:0f"))
        #expect(facts[.network] == .text("wifi"))

        table.apply(event(F.deleteRoute, F.route(family: 2, gateway: [192, 168, 1, 254], index: 2, metric: 100)))
        facts = table.facts(wireless: [])
        #expect(facts[.gateway] == .text("192.168.1.1"))
        #expect(facts[.gatewayMAC] == .unknown)
        #expect(facts[.network] == .text("wired"))
    }

    @Test func gatewayMACIsUnknownUntilTheKernelResolvesTheGateway() {
        var table = baseTable()
        #expect(table.facts(wireless: [])[.gatewayMAC] == .absent)
        table.apply(event(F.newRoute, F.route(family: 2, gateway: [192, 168, 1, 1], index: 2, metric: 100)))
        // No neighbour entry yet (a link just came up): the kernel has not answered.
        #expect(table.facts(wireless: [])[.gatewayMAC] == .unknown)
        #expect(table.gatewayToResolve == NeighbourKey(index: 2, destination: .v4(0xC0A8_0101)))
        // NUD_INCOMPLETE: the kernel is asking.
        table.apply(event(F.newNeighbour, F.neighbour(index: 2, ip: [192, 168, 1, 1], mac: nil, state: 0x01)))
        #expect(table.facts(wireless: [])[.gatewayMAC] == .unknown)
        #expect(table.gatewayToResolve == nil)
        // NUD_REACHABLE with an address: the answer.
        table.apply(event(F.newNeighbour, F.neighbour(index: 2, ip: [192, 168, 1, 1], mac: [2, 0, 0, 0, 0, 0xfe])))
        #expect(table.facts(wireless: [])[.gatewayMAC] == .text("02:00:00:00:00:fe"))
        // NUD_FAILED: the kernel asked and nobody answered.
        table.apply(event(F.newNeighbour, F.neighbour(index: 2, ip: [192, 168, 1, 1], mac: nil, state: 0x20)))
        #expect(table.facts(wireless: [])[.gatewayMAC] == .absent)
        // The link goes down and up again: the entry is gone until the kernel asks again.
        table.apply(event(F.deleteNeighbour, F.neighbour(index: 2, ip: [192, 168, 1, 1], mac: nil, state: 0x20)))
        #expect(table.facts(wireless: [])[.gatewayMAC] == .unknown)
        #expect(table.gatewayToResolve == NeighbourKey(index: 2, destination: .v4(0xC0A8_0101)))
    }

    @Test func gatewayMACIsAbsentOnALinkWithoutLinkLayerAddresses() {
        var table = baseTable()
        // IFF_UP | IFF_POINTOPOINT | IFF_RUNNING | IFF_NOARP | IFF_MULTICAST | IFF_LOWER_UP, as a tun shows.
        table.apply(
            event(F.newLink, F.link(index: 3, name: "tun0", flags: 0x1 | 0x10 | 0x40 | 0x80 | 0x1000 | 0x10000)))
        table.apply(event(F.newRoute, F.route(family: 2, gateway: [10, 8, 0, 1], index: 3, metric: 0)))
        #expect(table.facts(wireless: [])[.gateway] == .text("10.8.0.1"))
        #expect(table.facts(wireless: [])[.gatewayMAC] == .absent)
        #expect(table.gatewayToResolve == nil)
    }

    @Test func resolvingANeighbourIsANewNeighbourRequestWithNTFUse() {
        let request = RouteNetlinkRequest.resolveNeighbour(index: 2, address: .v4(0x0A09_0001), sequence: 7)
        // RTM_NEWNEIGH, NLM_F_REQUEST | NLM_F_REPLACE | NLM_F_CREATE.
        #expect(request.type == 28)
        #expect(request.flags == 0x1 | 0x100 | 0x400)
        // ndmsg: AF_INET, pad, pad, ifindex 2, NUD_NONE, NTF_USE (0x01), type 0; then NDA_DST.
        let ndmsg: [UInt8] = [2, 0, 0, 0] + F.le(Int32(2)) + F.le(UInt16(0)) + [0x01, 0]
        #expect(request.payload == ndmsg + F.attribute(1, [10, 9, 0, 1]))
    }

    @Test func replaceRemovesTheRouteWithTheSameKey() {
        var table = baseTable()
        table.apply(event(F.newRoute, F.route(family: 2, gateway: [192, 168, 1, 1], index: 2, metric: 100)))
        table.apply(
            event(F.newRoute, flags: 0x100, F.route(family: 2, gateway: [192, 168, 1, 2], index: 2, metric: 100)))
        #expect(table.routes.count == 1)
        #expect(table.facts(wireless: [])[.gateway] == .text("192.168.1.2"))
    }

    @Test func linkDownAsksForARouteResyncAndHidesAddresses() {
        var table = baseTable()
        let outcome = table.apply(event(F.newLink, F.link(index: 2, name: "eth0", flags: F.downFlags)))
        #expect(outcome.routesNeedResync)
        let facts = table.facts(wireless: [])
        #expect(facts[.interfaceState("eth0")] == .text("down"))
        #expect(facts[.ip] == .value(.list([])))
    }

    @Test func changesReportDeletedInterfacesAsAbsent() {
        let old: [FactKey: FactState] = [.interfaceState("eth0"): .text("up"), .ip: .value(.list([]))]
        let new: [FactKey: FactState] = [.ip: .value(.list([]))]
        #expect(NetworkTable.changes(from: old, to: new) == FactUpdate([.interfaceState("eth0"): .absent]))
        #expect(NetworkTable.changes(from: new, to: new).isEmpty)
    }
}
