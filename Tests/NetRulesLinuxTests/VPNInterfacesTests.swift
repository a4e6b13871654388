import NetRulesCore
import Testing

@testable import NetRulesLinux

/// Which interfaces `vpn` lists from the kernel's description, and how NetworkManager's part merges in.
@Suite(.timeLimit(.minutes(1)))
struct VPNInterfacesTests {
    typealias F = RouteFixtures

    private func event(_ type: UInt16, _ body: [UInt8]) -> RouteNetlinkEvent {
        RouteNetlinkEvent(NetlinkMessage.parse(F.message(type: type, body: body))[0])!
    }

    /// IFF_UP | IFF_POINTOPOINT | IFF_RUNNING | IFF_NOARP | IFF_MULTICAST | IFF_LOWER_UP: a tun an
    /// OpenVPN client holds open.
    private static let tunUp: UInt32 = 0x1 | 0x10 | 0x40 | 0x80 | 0x1000 | 0x10000

    @Test func decodesWireGuardsKindFromTheLinkInfo() throws {
        let messages = NetlinkMessage.parse(F.wireGuardLinkMessage)
        #expect(messages.count == 1)
        guard case .newLink(let link) = try #require(RouteNetlinkEvent(messages[0])) else {
            Issue.record("not a link")
            return
        }
        #expect(link.name == "wg0")
        #expect(link.kind == "wireguard")
        #expect(link.hardwareAddress == nil)
        var table = NetworkTable()
        table.apply(.newLink(link))
        #expect(table.facts(wireless: [])[.vpn] == .value(.list(["wg0"])))
        #expect(table.facts(wireless: [])[.interfaceState("wg0")] == .text("up"))
    }

    @Test func aPhysicalLinkHasNoKindAndAPeerAddressIsDecoded() throws {
        guard case .newLink(let link) = event(F.newLink, F.link(index: 2, name: "eth0", flags: F.upFlags)) else {
            Issue.record("not a link")
            return
        }
        #expect(link.kind == nil)
        guard
            case .newAddress(let address) = event(
                F.newAddress, F.address(family: 2, index: 7, bytes: [10, 9, 0, 1], prefix: 32, peer: [10, 9, 0, 2]))
        else {
            Issue.record("not an address")
            return
        }
        #expect(address.address == .v4(0x0A09_0001))
        #expect(address.peer == .v4(0x0A09_0002))
        guard
            case .newAddress(let plain) = event(
                F.newAddress, F.address(family: 2, index: 7, bytes: [10, 9, 0, 1], prefix: 24))
        else { return }
        #expect(plain.peer == nil)
    }

    @Test func vpnListsUpWireGuardAndPointToPointTunInterfacesOnly() {
        var table = NetworkTable()
        table.apply(event(F.newLink, F.link(index: 2, name: "eth0", flags: F.upFlags)))
        table.apply(event(F.newLink, F.link(index: 3, name: "veth1", flags: F.upFlags, kind: "veth")))
        table.apply(event(F.newLink, F.link(index: 4, name: "tun0", flags: Self.tunUp, mac: nil, kind: "tun")))
        // A tap (broadcast, no peer) bridged to a virtual machine.
        table.apply(event(F.newLink, F.link(index: 5, name: "tap0", flags: F.upFlags, kind: "tun")))
        table.apply(event(F.newLink, F.link(index: 6, name: "wg0", flags: Self.tunUp, mac: nil, kind: "wireguard")))
        #expect(table.facts(wireless: [])[.vpn] == .value(.list(["tun0", "wg0"])))

        // A tap with a point-to-point address is a VPN's (OpenVPN `dev tap` with a peer).
        table.apply(
            event(F.newAddress, F.address(family: 2, index: 5, bytes: [10, 8, 0, 2], prefix: 32, peer: [10, 8, 0, 1])))
        #expect(table.vpnInterfaces == ["tap0", "tun0", "wg0"])

        // Without a reader the tun has no carrier (not running): not up, so not a VPN now.
        table.apply(event(F.newLink, F.link(index: 4, name: "tun0", flags: 0x1 | 0x10 | 0x80 | 0x1000, kind: "tun")))
        // Administratively down.
        table.apply(event(F.newLink, F.link(index: 6, name: "wg0", flags: 0x10 | 0x80, mac: nil, kind: "wireguard")))
        #expect(table.vpnInterfaces == ["tap0"])
        table.apply(event(F.deleteLink, F.link(index: 5, name: "tap0", flags: F.upFlags, kind: "tun")))
        #expect(table.facts(wireless: [])[.vpn] == .value(.list([])))
    }

    @Test func mergesNetworkManagersNamesFirstAndIgnoresAnUnknownPart() {
        typealias V = VPNNames
        #expect(V.merged([:]) == .unknown)
        #expect(V.merged([.networkManager: .unknown]) == .unknown)
        #expect(V.merged([.networkManager: .unknown, .interfaces: .value(.list(["wg0"]))]) == .value(.list(["wg0"])))
        #expect(
            V.merged([.networkManager: .value(.list(["office", "wg0"])), .interfaces: .value(.list(["wg0", "tun0"]))])
                == .value(.list(["office", "wg0", "tun0"])))
        #expect(V.merged([.networkManager: .value(.list([])), .interfaces: .value(.list([]))]) == .value(.list([])))
    }

    @Test func eachObserversReportCarriesTheMergeOfTheLatestParts() async {
        let names = VPNNames()
        let (stream, continuation) = AsyncStream.makeStream(of: FactUpdate.self, bufferingPolicy: .unbounded)
        let sink = FactReporter(continuation)
        let netlink = names.reporter(wrapping: sink, source: .interfaces)
        let networkManager = names.reporter(wrapping: sink, source: .networkManager)
        netlink.yield(FactUpdate([.vpn: .value(.list(["wg0"])), .gateway: .absent]))
        networkManager.yield(FactUpdate([.vpn: .value(.list(["office"]))]))
        networkManager.yield(FactUpdate([.connection: .text("home")]))
        networkManager.yield(FactUpdate([.vpn: .unknown]))
        netlink.yield(FactUpdate([.vpn: .value(.list([]))]))
        continuation.finish()
        var seen: [FactState?] = []
        for await update in stream { seen.append(update[.vpn]) }
        #expect(
            seen == [
                .value(.list(["wg0"])), .value(.list(["office", "wg0"])), nil, .value(.list(["wg0"])),
                .value(.list([])),
            ])
    }
}
