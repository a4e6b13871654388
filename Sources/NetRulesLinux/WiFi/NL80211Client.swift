internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesSystem

/// The thin socket side of nl80211: resolve the family, ask for interfaces, stations and scan
/// results, and receive association events. All decoding lives in `NL80211Message`.
///
/// Not thread-safe: confined to the thread that opened it.
final class NL80211Client {
    let family: GenericNetlinkFamily
    private let requests: NetlinkSocket
    /// Subscribed to the `mlme` group: connect, roam and disconnect events.
    let events: NetlinkSocket
    private var sequence: UInt32 = 1

    /// Opens the sockets; nil when the kernel has no nl80211 (no cfg80211 loaded or built in).
    static func open() throws -> NL80211Client? {
        let control = try NetlinkSocket(protocol: NETLINK_GENERIC)
        defer { control.close() }
        try control.send(GenericNetlinkFamily.lookUp("nl80211", sequence: 1))
        for message in try receiveReply(on: control, sequence: 1) {
            if let error = message.errorCode, error.rawValue != 0 {
                if error == .noSuchFileOrDirectory { return nil }
                throw SystemCallError(call: "CTRL_CMD_GETFAMILY", errno: error)
            }
            if let family = GenericNetlinkFamily.parse(message.payload) { return try NL80211Client(family: family) }
        }
        return nil
    }

    private init(family: GenericNetlinkFamily) throws {
        self.family = family
        requests = try NetlinkSocket(protocol: NETLINK_GENERIC)
        events = try NetlinkSocket(protocol: NETLINK_GENERIC)
        if let mlme = family.groups["mlme"] { try events.join(group: mlme) }
    }

    deinit {
        requests.close()
        events.close()
    }

    /// The current association of every wireless interface, from fresh dumps.
    func currentState() throws -> WiFiState {
        var state = WiFiState()
        for message in try dump(NL80211_CMD_GET_INTERFACE, index: nil) { state.apply(message) }
        for (index, entry) in state.interfaces where entry.ssid != nil {
            for message in try dump(NL80211_CMD_GET_STATION, index: index) { state.apply(message) }
            for message in try dump(NL80211_CMD_GET_SCAN, index: index) { state.apply(message) }
        }
        return state
    }

    /// Reads queued events without blocking.
    func drainEvents() throws -> [NL80211Message] {
        var out: [NL80211Message] = []
        while case .messages(let messages) = try events.receive() {
            out += messages.filter { $0.type == family.id }.compactMap { NL80211Message.parse($0.payload) }
        }
        return out
    }

    private func dump(_ command: nl80211_commands, index: Int32?) throws -> [NL80211Message] {
        sequence &+= 1
        var attributes = NetlinkAttributeWriter()
        if let index { attributes.append(Int32(NL80211_ATTR_IFINDEX.rawValue), integer: UInt32(bitPattern: index)) }
        try requests.send(
            GenericNetlinkFamily.request(
                type: family.id, command: UInt8(command.rawValue), dump: true, sequence: sequence,
                attributes: attributes))
        return try NL80211Client.receiveReply(on: requests, sequence: sequence)
            .filter { $0.type == family.id }
            .compactMap { NL80211Message.parse($0.payload) }
    }

    /// Collects a reply up to `NLMSG_DONE`, an error, or the single non-multipart message.
    private static func receiveReply(on socket: NetlinkSocket, sequence: UInt32) throws -> [NetlinkMessage] {
        var collected: [NetlinkMessage] = []
        while true {
            guard try socket.waitReadable(wake: nil, timeout: 5000) else {
                throw SystemCallError(call: "poll", errno: Errno(rawValue: ETIMEDOUT))
            }
            guard case .messages(let messages) = try socket.receive() else { continue }
            for message in messages where message.sequence == sequence {
                if message.type == UInt16(NLMSG_DONE) { return collected }
                collected.append(message)
                if message.type == UInt16(NLMSG_ERROR) || message.flags & UInt16(NLM_F_MULTI) == 0 { return collected }
            }
        }
    }
}
