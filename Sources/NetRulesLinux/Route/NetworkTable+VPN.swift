import NetRulesCore

extension NetworkTable {
    /// Whether an interface is one end of a VPN, by the kernel's description alone:
    ///
    /// - kind `wireguard` (wg-quick, systemd-networkd, NetworkManager's WireGuard connections);
    /// - kind `tun` (OpenVPN, OpenConnect, vpnc, WireGuard in user space, tun and tap alike) with a
    ///   point-to-point address: the link is `IFF_POINTOPOINT` (every tun in tun mode), or one of
    ///   its addresses has a peer (`ip addr add 10.8.0.2 peer 10.8.0.1`).
    ///
    /// A tap bridged to a virtual machine has neither, so it is not a VPN.
    func isVPN(_ link: LinkMessage) -> Bool {
        switch link.kind {
        case "wireguard": true
        case "tun":
            link.flags.contains(.pointToPoint)
                || addresses.values.contains { $0.index == link.index && $0.peer != nil }
        default: false
        }
    }

    /// The `vpn` fact's interfaces: every VPN interface (`isVPN`) that is `up` as
    /// `interfaces.NAME` says it (administratively up and running, so a tun counts once the VPN
    /// client holds it open, its carrier), by name.
    var vpnInterfaces: [String] {
        links.values.filter { NetworkTable.isUp($0) && isVPN($0) }.map(\.name).sorted()
    }
}
