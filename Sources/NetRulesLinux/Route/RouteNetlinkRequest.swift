internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesCore

/// Requests to the kernel's rtnetlink, built as bytes.
enum RouteNetlinkRequest {
    /// A dump request for every object of `kind`, in all address families.
    static func dump(_ kind: NetworkTable.Kind, sequence: UInt32) -> NetlinkMessage {
        var payload: [UInt8] = []
        let type: Int32
        switch kind {
        case .links:
            type = Int32(RTM_GETLINK)
            payload.appendStruct(ifinfomsg())
        case .addresses:
            type = Int32(RTM_GETADDR)
            payload.appendStruct(ifaddrmsg())
        case .routes:
            type = Int32(RTM_GETROUTE)
            payload.appendStruct(rtmsg())
        case .neighbours:
            type = Int32(RTM_GETNEIGH)
            payload.appendStruct(ndmsg())
        }
        return NetlinkMessage(
            type: UInt16(type), flags: UInt16(NLM_F_REQUEST | NLM_F_DUMP), sequence: sequence, payload: payload)
    }

    /// Sets an interface administratively up or down (what `ip link set IF up|down` sends), asking for an ack.
    static func setLink(index: Int32, up: Bool, sequence: UInt32) -> NetlinkMessage {
        var info = ifinfomsg()
        info.ifi_family = UInt8(AF_UNSPEC)
        info.ifi_index = index
        info.ifi_flags = up ? UInt32(IFF_UP) : 0
        info.ifi_change = UInt32(IFF_UP)
        var payload: [UInt8] = []
        payload.appendStruct(info)
        return NetlinkMessage(
            type: UInt16(RTM_NEWLINK), flags: UInt16(NLM_F_REQUEST | NLM_F_ACK), sequence: sequence, payload: payload)
    }

    /// Asks the kernel to resolve the link-layer address of `address` on interface `index`, as
    /// `ip neigh replace ADDR dev IF use` does: `NTF_USE` makes the kernel create the entry and
    /// send its own ARP or neighbour solicitation (what the first packet to the address would
    /// do), so the answer, or `NUD_FAILED` when nobody answers, arrives as a neighbour event.
    /// The entry is created as `NUD_NONE`, so it is not permanent and the kernel may collect it.
    static func resolveNeighbour(index: Int32, address: IPAddress, sequence: UInt32) -> NetlinkMessage {
        var info = ndmsg()
        info.ndm_family = UInt8(address.isV6 ? AF_INET6 : AF_INET)
        info.ndm_ifindex = index
        info.ndm_state = UInt16(NUD_NONE)
        info.ndm_flags = UInt8(NTF_USE)
        var payload: [UInt8] = []
        payload.appendStruct(info)
        var attributes = NetlinkAttributeWriter()
        attributes.append(Int32(NDA_DST), address.bytes)
        payload += attributes.bytes
        return NetlinkMessage(
            type: UInt16(RTM_NEWNEIGH), flags: UInt16(NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE),
            sequence: sequence, payload: payload)
    }

    /// The multicast groups the network facts need. The corresponding C constants are `RTNLGRP_*`.
    static let groups: [UInt32] = [
        UInt32(RTNLGRP_LINK.rawValue), UInt32(RTNLGRP_IPV4_IFADDR.rawValue), UInt32(RTNLGRP_IPV6_IFADDR.rawValue),
        UInt32(RTNLGRP_IPV4_ROUTE.rawValue), UInt32(RTNLGRP_IPV6_ROUTE.rawValue), UInt32(RTNLGRP_NEIGH.rawValue),
    ]
}
