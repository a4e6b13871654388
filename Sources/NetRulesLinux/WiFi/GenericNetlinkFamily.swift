internal import CNetRulesLinux

/// A generic netlink family as the controller describes it: its message type id and multicast groups.
package struct GenericNetlinkFamily: Hashable, Sendable {
    /// The `nlmsg_type` of the family's messages.
    var id: UInt16
    /// Multicast group ids by name (`mlme`, `scan`, …).
    var groups: [String: UInt32]

    /// Decodes the controller's reply to `CTRL_CMD_GETFAMILY`.
    package static func parse(_ payload: [UInt8]) -> GenericNetlinkFamily? {
        let attributes = NetlinkAttributes(payload, from: Int(CNetRulesLinux_GENL_HDRLEN()))
        guard let id: UInt16 = attributes.integer(Int32(CTRL_ATTR_FAMILY_ID)) else { return nil }
        var groups: [String: UInt32] = [:]
        // CTRL_ATTR_MCAST_GROUPS is an array: nested sets keyed 1, 2, … each holding a name and an id.
        for entry in attributes.nested(Int32(CTRL_ATTR_MCAST_GROUPS))?.entries ?? [] {
            let group = NetlinkAttributes(entry.value)
            if let name = group.string(Int32(CTRL_ATTR_MCAST_GRP_NAME)),
                let groupID: UInt32 = group.integer(Int32(CTRL_ATTR_MCAST_GRP_ID))
            {
                groups[name] = groupID
            }
        }
        return GenericNetlinkFamily(id: id, groups: groups)
    }

    /// A generic netlink request: `genlmsghdr` (command, version) then attributes.
    static func request(type: UInt16, command: UInt8, dump: Bool, sequence: UInt32, attributes: NetlinkAttributeWriter)
        -> NetlinkMessage
    {
        var payload: [UInt8] = [command, 1, 0, 0]
        payload += attributes.bytes
        let flags = UInt16(NLM_F_REQUEST) | (dump ? UInt16(NLM_F_DUMP) : UInt16(NLM_F_ACK))
        return NetlinkMessage(type: type, flags: flags, sequence: sequence, payload: payload)
    }

    /// The controller request that resolves a family by name.
    static func lookUp(_ name: String, sequence: UInt32) -> NetlinkMessage {
        var attributes = NetlinkAttributeWriter()
        attributes.append(Int32(CTRL_ATTR_FAMILY_NAME), string: name)
        return request(
            type: UInt16(GENL_ID_CTRL), command: UInt8(CTRL_CMD_GETFAMILY), dump: false,
            sequence: sequence, attributes: attributes)
    }
}
