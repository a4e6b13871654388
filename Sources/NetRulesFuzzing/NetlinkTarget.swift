import NetRulesCore
import NetRulesLinux

/// `netlink`: an rtnetlink datagram, split into messages, each payload through every decoder, and
/// the decoded events applied to the network table the facts are computed from.
enum NetlinkTarget {
    static func run(_ bytes: [UInt8]) {
        var table = NetworkTable()
        for message in NetlinkMessage.parse(bytes) {
            decodeAll(message.payload)
            keep(message.errorCode)
            if let event = RouteNetlinkEvent(message) {
                keep(table.apply(event))
            }
        }
        // The datagram itself as one payload, so the decoders also see bytes no header framed.
        decodeAll(bytes)
        let facts = table.facts(wireless: ["wlan0"])
        keep(facts.map { "\($0.key) \($0.value)" })
    }

    /// Every rtnetlink payload decoder, whatever the message type says.
    static func decodeAll(_ payload: [UInt8]) {
        keep(LinkMessage.parse(payload)?.hashValue)
        keep(AddressMessage.parse(payload)?.hashValue)
        keep(RouteMessage.parse(payload)?.hashValue)
        keep(NeighbourMessage.parse(payload)?.hashValue)
    }
}
