internal import CNetRulesLinux
import NetRulesCore

/// A neighbour-table entry (ARP or NDP) as `RTM_NEWNEIGH`/`RTM_DELNEIGH` describes it.
package struct NeighbourMessage: Hashable, Sendable {
    /// The interface (`ndm_ifindex`).
    var index: Int32
    /// The neighbour's IP address (`NDA_DST`).
    var destination: IPAddress
    /// Its link-layer address (`NDA_LLADDR`), absent while unresolved.
    var linkAddress: MACAddress?
    /// `ndm_state`: a `NUD_*` bit such as `NUD_REACHABLE` or `NUD_STALE`.
    var state: UInt16

    /// The identity of an entry: interface and address.
    var key: NeighbourKey { NeighbourKey(index: index, destination: destination) }

    /// Whether the link-layer address is usable: resolved at some point and not failed.
    var isResolved: Bool {
        linkAddress != nil && state & UInt16(NUD_INCOMPLETE | NUD_FAILED) == 0 && state != UInt16(NUD_NONE)
    }

    /// Parses the body of a neighbour message; nil for other families or a missing `NDA_DST`.
    package static func parse(_ payload: [UInt8]) -> NeighbourMessage? {
        guard let info = payload.readStruct(as: ndmsg.self) else { return nil }
        let attributes = NetlinkAttributes(
            payload, from: Int(CNetRulesLinux_NLMSG_ALIGN(UInt32(MemoryLayout<ndmsg>.size))))
        guard let raw = attributes[Int32(NDA_DST)],
            let destination = IPAddress(family: Int32(info.ndm_family), bytes: raw)
        else { return nil }
        return NeighbourMessage(
            index: info.ndm_ifindex,
            destination: destination,
            linkAddress: attributes[Int32(NDA_LLADDR)].flatMap { MACAddress(octets: $0) },
            state: info.ndm_state
        )
    }
}

/// What identifies one neighbour entry.
struct NeighbourKey: Hashable, Sendable {
    var index: Int32
    var destination: IPAddress
}
