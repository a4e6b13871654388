internal import CNetRulesLinux

/// One rtnetlink message, decoded: what changed in the kernel's network tables.
package enum RouteNetlinkEvent: Hashable, Sendable {
    case newLink(LinkMessage)
    case deleteLink(LinkMessage)
    case newAddress(AddressMessage)
    case deleteAddress(AddressMessage)
    /// `replace` is set when `NLM_F_REPLACE` says the route took the place of one with the same key.
    case newRoute(RouteMessage, replace: Bool)
    case deleteRoute(RouteMessage)
    case newNeighbour(NeighbourMessage)
    case deleteNeighbour(NeighbourMessage)

    /// Decodes a message; nil for message types and families the network facts do not use.
    package init?(_ message: NetlinkMessage) {
        switch Int32(message.type) {
        case Int32(RTM_NEWLINK):
            guard let link = LinkMessage.parse(message.payload) else { return nil }
            self = .newLink(link)
        case Int32(RTM_DELLINK):
            guard let link = LinkMessage.parse(message.payload) else { return nil }
            self = .deleteLink(link)
        case Int32(RTM_NEWADDR):
            guard let address = AddressMessage.parse(message.payload) else { return nil }
            self = .newAddress(address)
        case Int32(RTM_DELADDR):
            guard let address = AddressMessage.parse(message.payload) else { return nil }
            self = .deleteAddress(address)
        case Int32(RTM_NEWROUTE):
            guard let route = RouteMessage.parse(message.payload) else { return nil }
            self = .newRoute(route, replace: message.flags & UInt16(NLM_F_REPLACE) != 0)
        case Int32(RTM_DELROUTE):
            guard let route = RouteMessage.parse(message.payload) else { return nil }
            self = .deleteRoute(route)
        case Int32(RTM_NEWNEIGH):
            guard let neighbour = NeighbourMessage.parse(message.payload) else { return nil }
            self = .newNeighbour(neighbour)
        case Int32(RTM_DELNEIGH):
            guard let neighbour = NeighbourMessage.parse(message.payload) else { return nil }
            self = .deleteNeighbour(neighbour)
        default:
            return nil
        }
    }
}
