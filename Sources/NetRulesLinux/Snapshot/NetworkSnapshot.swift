@preconcurrency import Glibc
import NetRulesCore

/// One reading of the network, the way `netrules status` shows it: the facts rules use, plus
/// per-interface details (MAC, netmask, broadcast) that only people need.
package struct NetworkSnapshot: Sendable {
    /// One interface's details.
    package struct Interface: Sendable, Equatable {
        /// The interface name.
        package var name: String
        /// `up` or `down`, as the `interfaces.NAME` fact.
        package var state: String
        /// The hardware address, when it has one.
        package var mac: String?
        /// IPv4 addresses with their masks.
        package var ipv4: [IPv4Address]
        /// IPv6 addresses as `address/prefix`, link-local ones included.
        package var ipv6: [String]

        package init(name: String, state: String, mac: String?, ipv4: [IPv4Address], ipv6: [String]) {
            self.name = name
            self.state = state
            self.mac = mac
            self.ipv4 = ipv4
            self.ipv6 = ipv6
        }
    }

    /// An IPv4 address as `ifconfig` shows it.
    package struct IPv4Address: Sendable, Equatable {
        /// `192.168.1.7/24`.
        package var cidr: String
        /// `255.255.255.0`.
        package var netmask: String
        /// The broadcast address, when the interface has one.
        package var broadcast: String?
    }

    /// The interfaces by kernel index.
    package var interfaces: [Interface]
    /// Every fact the built-in Linux observers own, by key (unknown ones left out).
    package var facts: [FactKey: FactState]
    /// The default route's interface, for display next to the gateway.
    package var gatewayInterface: String?

    /// Reads the current network of the calling thread's namespace: rtnetlink dumps, resolv.conf, nl80211.
    /// - Throws: `SystemCallError` when the netlink socket fails.
    package static func current(resolvConf: String = "/etc/resolv.conf") throws -> NetworkSnapshot {
        let session = try RouteNetlinkSession(subscribe: false)
        try session.resyncAll()
        let kernelWiFi = WiFiSource.kernelHasNL80211
        // No nl80211 (or no permission) means the kernel's Wi-Fi facts are unavailable, which is
        // what unavailableFacts reports.
        var wifi = (try? WiFiObserver.currentFacts()) ?? WiFiState.unavailableFacts
        // NetworkManager's facts, and its Wi-Fi facts where the kernel has no nl80211 (`wifi.source: auto`).
        wifi.merge(NetworkManagerObserver.currentFacts(reportsWiFi: !kernelWiFi)) { old, new in
            new == .unknown ? old : new
        }
        wifi = wifi.filter { $0.value != .unknown }
        return NetworkSnapshot(
            table: session.table, wifi: wifi, dns: ResolverObserver.currentFact(path: resolvConf))
    }

    /// Builds a snapshot from a mirrored table and the other observers' facts.
    init(table: NetworkTable, wifi: [FactKey: FactState], dns: FactState) {
        let wireless = WirelessInterfaces.filter(table.links.values.map(\.name))
        var facts = table.facts(wireless: wireless)
        let interfaceVPNs = facts[.vpn]
        facts.merge(wifi) { _, new in new }
        facts[.vpn] = VPNNames.merged([.interfaces: interfaceVPNs ?? .unknown, .networkManager: wifi[.vpn] ?? .unknown])
        facts[.dns] = dns
        self.facts = facts.filter { $0.value != .unknown }
        gatewayInterface = (table.defaultRoute(family: AF_INET) ?? table.defaultRoute(family: AF_INET6))
            .flatMap { $0.outputIndex }.flatMap { table.links[$0]?.name }
        interfaces = table.links.values.sorted { $0.index < $1.index }.map { link in
            let addresses = table.addresses.values.filter { $0.index == link.index }
                .sorted { $0.address.bytes.lexicographicallyPrecedes($1.address.bytes) }
            return Interface(
                name: link.name,
                state: NetworkTable.isUp(link) ? "up" : "down",
                mac: link.hardwareAddress.map(\.description),
                ipv4: addresses.filter { !$0.address.isV6 }.map {
                    IPv4Address(
                        cidr: "\($0.address)/\($0.prefixLength)",
                        netmask: IPAddress.netmask(prefixLength: $0.prefixLength).description,
                        broadcast: $0.broadcast?.description)
                },
                ipv6: addresses.filter { $0.address.isV6 }.map { "\($0.address)/\($0.prefixLength)" })
        }
    }
}
