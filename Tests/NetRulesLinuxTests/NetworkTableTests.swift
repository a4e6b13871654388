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
        #expect(facts[.gatewayMAC] == .absent)
        #expect(facts[.network] == .text("wired"))
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
