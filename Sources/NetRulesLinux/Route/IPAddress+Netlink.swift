@preconcurrency import Glibc
import NetRulesCore

extension IPAddress {
    /// An address from its network-order bytes in a netlink attribute; nil when the family or length is wrong.
    init?(family: Int32, bytes: [UInt8]) {
        switch family {
        case AF_INET where bytes.count == 4:
            self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case AF_INET6 where bytes.count == 16:
            self = .v6(bytes)
        default:
            return nil
        }
    }

    /// An IPv6 link-local address (`fe80::/10`), which is meaningless without its interface.
    var isLinkLocalV6: Bool {
        guard case .v6(let b) = self else { return false }
        return b[0] == 0xFE && b[1] & 0xC0 == 0x80
    }

    /// The IPv4 netmask for a prefix length, e.g. 255.255.255.0 for 24.
    static func netmask(prefixLength: Int) -> IPAddress {
        let length = max(0, min(32, prefixLength))
        return .v4(length == 0 ? 0 : UInt32.max << UInt32(32 - length))
    }
}
