internal import CNetRulesLinux
import NetRulesCore

/// The nl80211 requests the Wi-Fi observer sends, as values: checked byte for byte against
/// messages pyroute2 encodes (`Tests/NetRulesLinuxTests/Fixtures/nl80211`).
enum NL80211Request {
    /// `NL80211_CMD_GET_INTERFACE`, dumped: every wireless interface.
    static func interfaces(family: UInt16, sequence: UInt32) -> NetlinkMessage {
        request(NL80211_CMD_GET_INTERFACE, family: family, index: nil, mac: nil, sequence: sequence)
    }

    /// `NL80211_CMD_GET_STATION`, dumped over one interface (a client's one station is its access point).
    static func stations(family: UInt16, index: Int32, sequence: UInt32) -> NetlinkMessage {
        request(NL80211_CMD_GET_STATION, family: family, index: index, mac: nil, sequence: sequence)
    }

    /// `NL80211_CMD_GET_STATION` for one station: the kernel answers with a single
    /// `NL80211_CMD_NEW_STATION` and an acknowledgement.
    static func station(family: UInt16, index: Int32, mac: MACAddress, sequence: UInt32) -> NetlinkMessage {
        request(NL80211_CMD_GET_STATION, family: family, index: index, mac: mac, sequence: sequence)
    }

    /// `NL80211_CMD_GET_SCAN`, dumped over one interface: its BSS table, the associated BSS marked.
    static func scan(family: UInt16, index: Int32, sequence: UInt32) -> NetlinkMessage {
        request(NL80211_CMD_GET_SCAN, family: family, index: index, mac: nil, sequence: sequence)
    }

    /// A dump unless a station is named (linux/nl80211.h: GET_STATION takes `NL80211_ATTR_MAC`
    /// to name one, and dumps them all without it).
    private static func request(
        _ command: nl80211_commands, family: UInt16, index: Int32?, mac: MACAddress?, sequence: UInt32
    ) -> NetlinkMessage {
        var attributes = NetlinkAttributeWriter()
        if let index { attributes.append(Int32(NL80211_ATTR_IFINDEX.rawValue), integer: UInt32(bitPattern: index)) }
        if let mac { attributes.append(Int32(NL80211_ATTR_MAC.rawValue), mac.octets) }
        return GenericNetlinkFamily.request(
            type: family, command: UInt8(command.rawValue), dump: mac == nil, sequence: sequence,
            attributes: attributes)
    }
}
