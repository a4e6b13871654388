internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesCore

/// A network interface as an `RTM_NEWLINK`/`RTM_DELLINK` message describes it.
package struct LinkMessage: Hashable, Sendable {
    /// The kernel's interface index (`ifi_index`).
    var index: Int32
    /// The interface name (`IFLA_IFNAME`).
    var name: String
    /// The interface flags (`ifi_flags`).
    var flags: LinkFlags
    /// The hardware address (`IFLA_ADDRESS`), when it is an Ethernet-style 6-byte address.
    var hardwareAddress: MACAddress?
    /// The RFC 2863 operational state (`IFLA_OPERSTATE`), e.g. 6 for `IF_OPER_UP`.
    var operationalState: UInt8?
    /// Whether the kernel reports a wireless extension for it (`IFLA_WIRELESS` present).
    var hasWirelessAttribute: Bool
    /// The driver's kind (`IFLA_INFO_KIND` in `IFLA_LINKINFO`): `wireguard`, `tun` (tun and tap
    /// alike), `veth`, `bridge`, …; nil for a physical device, which has no link info.
    var kind: String? = nil

    /// Parses the body of a link message; nil when it is too short to hold an `ifinfomsg`.
    package static func parse(_ payload: [UInt8]) -> LinkMessage? {
        guard let info = payload.readStruct(as: ifinfomsg.self) else { return nil }
        let attributes = NetlinkAttributes(
            payload, from: Int(CNetRulesLinux_NLMSG_ALIGN(UInt32(MemoryLayout<ifinfomsg>.size))))
        return LinkMessage(
            index: info.ifi_index,
            name: attributes.string(Int32(IFLA_IFNAME)) ?? "if\(info.ifi_index)",
            flags: LinkFlags(rawValue: info.ifi_flags),
            hardwareAddress: attributes[Int32(IFLA_ADDRESS)].flatMap { MACAddress(octets: $0) },
            operationalState: attributes.integer(Int32(IFLA_OPERSTATE)),
            hasWirelessAttribute: attributes[Int32(IFLA_WIRELESS)] != nil,
            kind: attributes.nested(Int32(IFLA_LINKINFO))?.string(Int32(IFLA_INFO_KIND))
        )
    }
}

/// The interface flags of `ifi_flags` that facts depend on.
struct LinkFlags: OptionSet, Hashable, Sendable {
    let rawValue: UInt32

    /// Administratively up. The corresponding C constant is `IFF_UP`.
    static let up = LinkFlags(rawValue: UInt32(IFF_UP))
    /// The loopback interface. The corresponding C constant is `IFF_LOOPBACK`.
    static let loopback = LinkFlags(rawValue: UInt32(IFF_LOOPBACK))
    /// Operationally up (RFC 2863 `up`, which needs carrier and, on Wi-Fi, association).
    /// The corresponding C constant is `IFF_RUNNING`.
    static let running = LinkFlags(rawValue: UInt32(IFF_RUNNING))
    /// The link resolves no link-layer addresses (no ARP or neighbour discovery).
    /// The corresponding C constant is `IFF_NOARP`.
    static let noARP = LinkFlags(rawValue: UInt32(IFF_NOARP))
    /// A point-to-point link, with a peer instead of a broadcast domain.
    /// The corresponding C constant is `IFF_POINTOPOINT`.
    static let pointToPoint = LinkFlags(rawValue: UInt32(IFF_POINTOPOINT))
    /// The driver signals carrier. The corresponding C constant is `IFF_LOWER_UP` (linux/if.h, 1<<16).
    static let lowerUp = LinkFlags(rawValue: 1 << 16)
}
