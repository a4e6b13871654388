internal import CNetRulesLinux
import NetRulesCore

/// One nl80211 message, decoded into what the Wi-Fi facts need.
///
/// A pure function over the generic netlink payload (`genlmsghdr` + attributes). These machines
/// have no cfg80211, so it is tested on messages an independent implementation encoded
/// (pyroute2, through `scripts/make-nl80211-fixtures`), checked against linux/nl80211.h.
package enum NL80211Message: Hashable, Sendable {
    /// `NL80211_CMD_NEW_INTERFACE` (the reply to `GET_INTERFACE`): name and, when connected, SSID and frequency.
    case interface(index: Int32, name: String, ssid: [UInt8]?, frequency: UInt32?)
    /// `NL80211_CMD_CONNECT`: association finished; `status` 0 means success.
    case connected(index: Int32, bssid: MACAddress?, status: UInt16)
    /// `NL80211_CMD_ROAM`: moved to another access point of the same network.
    case roamed(index: Int32, bssid: MACAddress?)
    /// `NL80211_CMD_DISCONNECT`.
    case disconnected(index: Int32)
    /// `NL80211_CMD_NEW_SCAN_RESULTS` with a BSS (the reply to `GET_SCAN`).
    case bss(index: Int32, bssid: MACAddress, frequency: UInt32?, ssid: [UInt8]?, signalDBm: Int?, isAssociated: Bool)
    /// `NL80211_CMD_NEW_STATION` (the reply to `GET_STATION`): the access point as a station, with its signal.
    case station(index: Int32, mac: MACAddress?, signalDBm: Int?)

    /// Decodes a generic netlink payload; nil for commands the Wi-Fi facts ignore.
    package static func parse(_ payload: [UInt8]) -> NL80211Message? {
        guard payload.count >= Int(CNetRulesLinux_GENL_HDRLEN()) else { return nil }
        let command = UInt32(payload[0])
        let attributes = NetlinkAttributes(payload, from: Int(CNetRulesLinux_GENL_HDRLEN()))
        let index: Int32 = attributes.integer(attribute(NL80211_ATTR_IFINDEX)) ?? 0
        let mac = attributes[attribute(NL80211_ATTR_MAC)].flatMap { MACAddress(octets: $0) }
        switch command {
        case NL80211_CMD_NEW_INTERFACE.rawValue:
            return .interface(
                index: index, name: attributes.string(attribute(NL80211_ATTR_IFNAME)) ?? "",
                ssid: attributes[attribute(NL80211_ATTR_SSID)],
                frequency: attributes.integer(attribute(NL80211_ATTR_WIPHY_FREQ)))
        case NL80211_CMD_CONNECT.rawValue:
            return .connected(
                index: index, bssid: mac, status: attributes.integer(attribute(NL80211_ATTR_STATUS_CODE)) ?? 0)
        case NL80211_CMD_ROAM.rawValue:
            return .roamed(index: index, bssid: mac)
        case NL80211_CMD_DISCONNECT.rawValue:
            return .disconnected(index: index)
        case NL80211_CMD_NEW_SCAN_RESULTS.rawValue:
            guard let bss = attributes.nested(attribute(NL80211_ATTR_BSS)),
                let bssid = bss[Int32(NL80211_BSS_BSSID.rawValue)].flatMap({ MACAddress(octets: $0) })
            else { return nil }
            let status: UInt32? = bss.integer(Int32(NL80211_BSS_STATUS.rawValue))
            let signal: Int32? = bss.integer(Int32(NL80211_BSS_SIGNAL_MBM.rawValue))
            return .bss(
                index: index, bssid: bssid, frequency: bss.integer(Int32(NL80211_BSS_FREQUENCY.rawValue)),
                ssid: bss[Int32(NL80211_BSS_INFORMATION_ELEMENTS.rawValue)].flatMap(ssid(inInformationElements:)),
                signalDBm: signal.map { Int($0) / 100 },
                isAssociated: status == NL80211_BSS_STATUS_ASSOCIATED.rawValue)
        case NL80211_CMD_NEW_STATION.rawValue:
            let info = attributes.nested(attribute(NL80211_ATTR_STA_INFO))
            let signal: UInt8? = info?.integer(Int32(NL80211_STA_INFO_SIGNAL.rawValue))
            return .station(index: index, mac: mac, signalDBm: signal.map { Int(Int8(bitPattern: $0)) })
        default:
            return nil
        }
    }

    /// The SSID element (id 0) of 802.11 information elements: `id, length, bytes…` repeated.
    static func ssid(inInformationElements elements: [UInt8]) -> [UInt8]? {
        var position = 0
        while position + 2 <= elements.count {
            let id = elements[position]
            let length = Int(elements[position + 1])
            guard position + 2 + length <= elements.count else { return nil }
            if id == 0 { return Array(elements[(position + 2)..<(position + 2 + length)]) }
            position += 2 + length
        }
        return nil
    }

    private static func attribute(_ value: nl80211_attrs) -> Int32 { Int32(value.rawValue) }
}
