@testable import NetRulesLinux

/// rtnetlink messages as bytes, laid out by hand from linux/rtnetlink.h, if_link.h, if_addr.h and
/// neighbour.h (host order, x86-64), so the parser is checked against the kernel's layout, not
/// against itself.
enum RouteFixtures {
    // Message types (linux/rtnetlink.h).
    static let newLink: UInt16 = 16, deleteLink: UInt16 = 17, newAddress: UInt16 = 20, deleteAddress: UInt16 = 21
    static let newRoute: UInt16 = 24, deleteRoute: UInt16 = 25, newNeighbour: UInt16 = 28, deleteNeighbour: UInt16 = 29

    /// `nlmsghdr` + body, padded.
    static func message(type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, body: [UInt8]) -> [UInt8] {
        NetlinkMessage(type: type, flags: flags, sequence: sequence, payload: body).encoded
    }

    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var out = le(UInt16(4 + value.count)) + le(type) + value
        while out.count % 4 != 0 { out.append(0) }
        return out
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// `struct ifinfomsg` (16 bytes) + IFLA_IFNAME (3), IFLA_ADDRESS (1), IFLA_OPERSTATE (16), and
    /// IFLA_LINKINFO (18) holding IFLA_INFO_KIND (1) when `kind` is given.
    static func link(
        index: Int32, name: String, flags: UInt32, mac: [UInt8]? = [2, 0, 0, 0, 0, 1], kind: String? = nil
    ) -> [UInt8] {
        let info: [UInt8] = [0, 0] + le(UInt16(1)) + le(index) + le(flags) + le(UInt32(0))
        var out = info + attribute(3, Array(name.utf8) + [0])
        if let mac { out += attribute(1, mac) }
        out += attribute(16, [6])
        if let kind { out += attribute(18, attribute(1, Array(kind.utf8) + [0])) }
        return out
    }

    /// An `RTM_NEWLINK` for `wg0` (index 5) as kernel 6.x sends it for an up WireGuard interface
    /// (`ip link add wg0 type wireguard`, `ip link set wg0 up`), trimmed to the attributes read:
    /// flags IFF_UP | IFF_POINTOPOINT | IFF_RUNNING | IFF_NOARP | IFF_LOWER_UP (0x100d1), type
    /// ARPHRD_NONE (0xfffe), no IFLA_ADDRESS (WireGuard has no link-layer address), IFLA_OPERSTATE
    /// IF_OPER_UNKNOWN (0), then IFLA_LINKINFO with IFLA_INFO_KIND "wireguard".
    static let wireGuardLinkMessage: [UInt8] =
        // nlmsghdr: length 68, RTM_NEWLINK (16), flags 0, sequence 0, port 0.
        [68, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        // ifinfomsg: AF_UNSPEC, pad, ARPHRD_NONE, index 5, flags 0x100d1, change 0.
        + [0, 0, 0xfe, 0xff, 5, 0, 0, 0, 0xD1, 0x00, 0x01, 0x00, 0, 0, 0, 0]
        // IFLA_IFNAME (3): "wg0\0".
        + [8, 0, 3, 0, 0x77, 0x67, 0x30, 0]
        // IFLA_OPERSTATE (16): 0, padded.
        + [5, 0, 16, 0, 0, 0, 0, 0]
        // IFLA_LINKINFO (18; nla_nest_start_noflag: no NLA_F_NESTED) of 20 bytes: IFLA_INFO_KIND (1)
        // "wireguard\0" (14 bytes, 2 of padding).
        + [20, 0, 18, 0, 14, 0, 1, 0] + Array("wireguard".utf8) + [0, 0, 0]

    /// `struct ifaddrmsg` (8 bytes) + IFA_ADDRESS (1), IFA_LOCAL (2), IFA_BROADCAST (4), IFA_FLAGS (8).
    /// A `peer` is sent as IFA_ADDRESS beside IFA_LOCAL, as for `ip addr add A peer B`.
    static func address(
        family: UInt8, index: UInt32, bytes: [UInt8], prefix: UInt8, flags: UInt32 = 0x80,
        broadcast: [UInt8]? = nil, peer: [UInt8]? = nil
    ) -> [UInt8] {
        var out: [UInt8] = [family, prefix, UInt8(truncatingIfNeeded: flags), 0] + le(index)
        out += attribute(1, peer ?? bytes)
        if family == 2 { out += attribute(2, bytes) }
        if let broadcast { out += attribute(4, broadcast) }
        out += attribute(8, le(flags))
        return out
    }

    /// `struct rtmsg` (12 bytes: family, dst_len, src_len, tos, table, protocol, scope, type, flags)
    /// + RTA_TABLE (15), RTA_PRIORITY (6), RTA_GATEWAY (5), RTA_OIF (4), RTA_DST (1).
    static func route(
        family: UInt8, destination: [UInt8]? = nil, length: UInt8 = 0, gateway: [UInt8]?,
        index: Int32, metric: UInt32, table: UInt32 = 254
    ) -> [UInt8] {
        var out: [UInt8] = [family, length, 0, 0, UInt8(truncatingIfNeeded: min(table, 255)), 3, 0, 1] + le(UInt32(0))
        out += attribute(15, le(table))
        out += attribute(6, le(metric))
        if let destination { out += attribute(1, destination) }
        if let gateway { out += attribute(5, gateway) }
        out += attribute(4, le(index))
        return out
    }

    /// `struct ndmsg` (12 bytes: family, pad, pad16, ifindex, state, flags, type) + NDA_DST (1), NDA_LLADDR (2).
    static func neighbour(index: Int32, ip: [UInt8], mac: [UInt8]?, state: UInt16 = 0x02) -> [UInt8] {
        var out: [UInt8] = [2, 0, 0, 0] + le(index) + le(state) + [0, 1]
        out += attribute(1, ip)
        if let mac { out += attribute(2, mac) }
        return out
    }

    /// IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP, as a connected Ethernet shows.
    static let upFlags: UInt32 = 0x1 | 0x2 | 0x40 | 0x1000 | 0x10000
    /// IFF_BROADCAST | IFF_MULTICAST: administratively down.
    static let downFlags: UInt32 = 0x2 | 0x1000
}
