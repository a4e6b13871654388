internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesCore

extension NetworkTable {
    /// Whether an interface counts as `up`: administratively up and operationally running.
    ///
    /// `IFF_RUNNING` follows the RFC 2863 operational state, so an interface without carrier, or a
    /// Wi-Fi interface that is not associated (operstate `dormant`), is `down`.
    static func isUp(_ link: LinkMessage) -> Bool {
        link.flags.contains(.up) && link.flags.contains(.running)
    }

    /// The addresses the `ip` fact lists: on interfaces that are up, not loopback, not IPv6 link-local,
    /// and not tentative or failed in duplicate-address detection; IPv4 first, then IPv6, each by address.
    var reportedAddresses: [AddressMessage] {
        addresses.values.filter { address in
            guard let link = links[address.index], NetworkTable.isUp(link), !link.flags.contains(.loopback)
            else { return false }
            return !address.address.isLinkLocalV6 && !address.isTentativeOrFailed
        }
        .sorted { a, b in
            if a.address.isV6 != b.address.isV6 { return !a.address.isV6 }
            if a.address.bytes != b.address.bytes { return a.address.bytes.lexicographicallyPrecedes(b.address.bytes) }
            return a.prefixLength < b.prefixLength
        }
    }

    /// The default route of a family in the main table: lowest metric wins, ties go to the lower
    /// interface index so the choice is stable. Routes through interfaces that are down are skipped.
    func defaultRoute(family: Int32) -> RouteMessage? {
        routes.values.filter { route in
            guard route.family == family, route.isMainDefault, let index = route.outputIndex,
                let link = links[index], link.flags.contains(.up)
            else { return false }
            return true
        }
        .min { a, b in
            (a.priority, a.outputIndex ?? 0) < (b.priority, b.outputIndex ?? 0)
        }
    }

    /// The facts this table implies, every key the netlink observer owns.
    ///
    /// - Parameter wireless: names of wireless interfaces (from sysfs or nl80211), for `network`.
    /// - Returns: `interfaces.NAME` for every interface, `ip`, `gateway`, `gateway.mac`, `gateway6`, `network`,
    ///   and `vpn` with the VPN interfaces (`vpnInterfaces`; `VPNNames` merges NetworkManager's part in).
    package func facts(wireless: Set<String>) -> [FactKey: FactState] {
        var facts: [FactKey: FactState] = [:]
        for link in links.values {
            facts[.interfaceState(link.name)] = .value(.string(NetworkTable.isUp(link) ? "up" : "down"))
        }
        facts[.vpn] = .value(.list(vpnInterfaces.map { .string($0) }))
        facts[.ip] = .value(.list(reportedAddresses.map { .string("\($0.address)/\($0.prefixLength)") }))

        let route4 = defaultRoute(family: AF_INET)
        let route6 = defaultRoute(family: AF_INET6)
        facts[.gateway] = route4?.gateway.map { .value(.string("\($0)")) } ?? .absent
        facts[.gateway6] = route6?.gateway.map { .value(.string("\($0)")) } ?? .absent
        facts[.gatewayMAC] = gatewayMAC(route4)

        if let index = (route4 ?? route6)?.outputIndex, let link = links[index] {
            let isWireless = wireless.contains(link.name) || link.hasWirelessAttribute
            facts[.network] = .value(.string(isWireless ? "wifi" : "wired"))
        } else {
            facts[.network] = .value(.string("none"))
        }
        return facts
    }

    /// `gateway.mac`: the IPv4 gateway's link-layer address as the neighbour table holds it.
    ///
    /// Right after a link change the table has no entry for the gateway yet: the kernel resolves
    /// it with the first packet sent there. Until it answers the MAC is unknown, not absent, so a
    /// rule or place reading it never sees a false "no gateway MAC". It is absent only when there
    /// is no IPv4 gateway, when the interface has no link-layer addresses to resolve (`IFF_NOARP`,
    /// a point-to-point or tun link without a hardware address), or when resolution failed
    /// (`NUD_FAILED`: the kernel asked and nobody answered).
    func gatewayMAC(_ route: RouteMessage?) -> FactState {
        guard let route, let gateway = route.gateway, let index = route.outputIndex else { return .absent }
        if let link = links[index], link.flags.contains(.noARP) || link.hardwareAddress == nil { return .absent }
        guard let neighbour = neighbours[NeighbourKey(index: index, destination: gateway)] else { return .unknown }
        if neighbour.isResolved, let mac = neighbour.linkAddress { return .value(.string(mac.description)) }
        return neighbour.state & UInt16(NUD_FAILED) != 0 ? .absent : .unknown
    }

    /// The IPv4 gateway whose MAC is unknown because the neighbour table holds no entry for it,
    /// on an interface that is up: the neighbour to ask the kernel to resolve. Nil when there is
    /// nothing to ask (no gateway, already resolved, failed or being resolved, or no ARP there).
    var gatewayToResolve: NeighbourKey? {
        let route = defaultRoute(family: AF_INET)
        guard let route, let gateway = route.gateway, let index = route.outputIndex,
            let link = links[index], NetworkTable.isUp(link)
        else { return nil }
        let key = NeighbourKey(index: index, destination: gateway)
        guard neighbours[key] == nil, gatewayMAC(route) == .unknown else { return nil }
        return key
    }

    /// The update that takes a consumer from `old` facts to `new`: changed keys, and keys that
    /// disappeared (a deleted interface) as known absent.
    static func changes(from old: [FactKey: FactState], to new: [FactKey: FactState]) -> FactUpdate {
        var update = FactUpdate()
        for (key, state) in new where old[key] != state {
            update[key] = state
        }
        for (key, state) in old where new[key] == nil && state != .absent {
            update[key] = .absent
        }
        return update
    }
}
