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
    /// - Returns: `interfaces.NAME` for every interface, `ip`, `gateway`, `gateway.mac`, `gateway6`, `network`.
    package func facts(wireless: Set<String>) -> [FactKey: FactState] {
        var facts: [FactKey: FactState] = [:]
        for link in links.values {
            facts[.interfaceState(link.name)] = .value(.string(NetworkTable.isUp(link) ? "up" : "down"))
        }
        facts[.ip] = .value(.list(reportedAddresses.map { .string("\($0.address)/\($0.prefixLength)") }))

        let route4 = defaultRoute(family: AF_INET)
        let route6 = defaultRoute(family: AF_INET6)
        facts[.gateway] = route4?.gateway.map { .value(.string("\($0)")) } ?? .absent
        facts[.gateway6] = route6?.gateway.map { .value(.string("\($0)")) } ?? .absent
        facts[.gatewayMAC] = .absent
        if let route4, let gateway = route4.gateway, let index = route4.outputIndex,
            let neighbour = neighbours[NeighbourKey(index: index, destination: gateway)], neighbour.isResolved,
            let mac = neighbour.linkAddress
        {
            facts[.gatewayMAC] = .value(.string(mac.description))
        }

        if let index = (route4 ?? route6)?.outputIndex, let link = links[index] {
            let isWireless = wireless.contains(link.name) || link.hasWirelessAttribute
            facts[.network] = .value(.string(isWireless ? "wifi" : "wired"))
        } else {
            facts[.network] = .value(.string("none"))
        }
        return facts
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
