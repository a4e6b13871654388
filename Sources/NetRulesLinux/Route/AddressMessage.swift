internal import CNetRulesLinux
import NetRulesCore

/// A local address as an `RTM_NEWADDR`/`RTM_DELADDR` message describes it.
package struct AddressMessage: Hashable, Sendable {
    /// The interface it is on (`ifa_index`).
    var index: Int32
    /// The address itself (`IFA_LOCAL` when present, else `IFA_ADDRESS`).
    var address: IPAddress
    /// The prefix length (`ifa_prefixlen`).
    var prefixLength: Int
    /// The IPv4 broadcast address (`IFA_BROADCAST`).
    var broadcast: IPAddress?
    /// The `IFA_F_*` flags, the 32-bit `IFA_FLAGS` attribute when present (it supersedes `ifa_flags`).
    var flags: UInt32
    /// `ifa_scope`: `RT_SCOPE_UNIVERSE` (0), `RT_SCOPE_LINK` (253), `RT_SCOPE_HOST` (254).
    var scope: UInt8
    /// The other end of a point-to-point address (`ip addr add A peer B`): the kernel then sends
    /// `IFA_ADDRESS` = B beside `IFA_LOCAL` = A; nil when they are equal or one is missing.
    var peer: IPAddress? = nil

    /// The identity the kernel uses for an address: interface, address and prefix.
    var key: AddressKey { AddressKey(index: index, address: address, prefixLength: prefixLength) }

    /// Whether the address is still being checked for duplicates, or failed the check (IPv6 DAD).
    var isTentativeOrFailed: Bool {
        flags & UInt32(IFA_F_TENTATIVE | IFA_F_DADFAILED) != 0
    }

    /// Parses the body of an address message; nil for families other than IPv4/IPv6.
    package static func parse(_ payload: [UInt8]) -> AddressMessage? {
        guard let info = payload.readStruct(as: ifaddrmsg.self) else { return nil }
        let attributes = NetlinkAttributes(
            payload, from: Int(CNetRulesLinux_NLMSG_ALIGN(UInt32(MemoryLayout<ifaddrmsg>.size))))
        let family = Int32(info.ifa_family)
        let local = attributes[Int32(IFA_LOCAL)]
        let remote = attributes[Int32(IFA_ADDRESS)]
        guard
            let raw = local ?? remote,
            let address = IPAddress(family: family, bytes: raw)
        else { return nil }
        let peer = local != nil && remote != nil && local != remote ? IPAddress(family: family, bytes: remote!) : nil
        return AddressMessage(
            index: Int32(bitPattern: info.ifa_index),
            address: address,
            prefixLength: Int(info.ifa_prefixlen),
            broadcast: attributes[Int32(IFA_BROADCAST)].flatMap { IPAddress(family: family, bytes: $0) },
            flags: attributes.integer(Int32(IFA_FLAGS)) ?? UInt32(info.ifa_flags),
            scope: info.ifa_scope,
            peer: peer
        )
    }
}

/// What identifies one address in the table.
struct AddressKey: Hashable, Sendable {
    var index: Int32
    var address: IPAddress
    var prefixLength: Int
}
