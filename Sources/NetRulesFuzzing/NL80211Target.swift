import NetRulesCore
import NetRulesLinux

/// `nl80211`: generic netlink payloads (`genlmsghdr` + attributes) through the family and nl80211
/// decoders, and the messages applied to the Wi-Fi state the facts come from.
///
/// The bytes are read both as one payload and as a datagram of netlink messages.
enum NL80211Target {
    static func run(_ bytes: [UInt8]) {
        var state = WiFiState()
        for payload in [bytes] + NetlinkMessage.parse(bytes).map(\.payload) {
            keep(GenericNetlinkFamily.parse(payload)?.hashValue)
            if let message = NL80211Message.parse(payload) {
                keep(state.apply(message))
            }
        }
        keep(state.facts.map { "\($0.key) \($0.value)" })
    }
}
