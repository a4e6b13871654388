internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// The thin socket side of nl80211: resolve the family, ask for interfaces, stations and scan
/// results, and receive association events. All decoding lives in `NL80211Message`.
///
/// Not thread-safe: confined to the thread that opened it.
final class NL80211Client: NL80211Session {
    let family: GenericNetlinkFamily
    private let requests: NetlinkSocket
    /// Subscribed to the `mlme` group: connect, roam and disconnect events.
    private let events: NetlinkSocket
    private var sequence: UInt32 = 1

    /// Opens the sockets; nil when the kernel has no nl80211 (no cfg80211 loaded or built in).
    static func open() throws -> NL80211Client? {
        let control = try NetlinkSocket(protocol: NETLINK_GENERIC)
        defer { control.close() }
        let request = GenericNetlinkFamily.lookUp("nl80211", sequence: 1)
        try control.send(request)
        for message in try receiveReply(on: control, to: request) {
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
        let id = family.id
        for message in try query({ NL80211Request.interfaces(family: id, sequence: $0) }) { state.apply(message) }
        for (index, entry) in state.interfaces where entry.ssid != nil {
            for message in try query({ NL80211Request.stations(family: id, index: index, sequence: $0) }) {
                state.apply(message)
            }
            for message in try query({ NL80211Request.scan(family: id, index: index, sequence: $0) }) {
                state.apply(message)
            }
        }
        return state
    }

    /// Waits for association events, `wake`, or `timeout` milliseconds (-1: no timeout), through
    /// `Readiness` (a watch of `loop`, no thread).
    /// - Throws: `CancellationError` when `wake` is signalled or the task is cancelled.
    func waitForEvents(on loop: ThreadExecutor, wake: WakeEvent, timeout: Int32) async throws -> Bool {
        // The events first: on the loop only the first ready descriptor is reported, and events
        // are read before a wake-up is handled.
        let socket = try events.descriptor.withFileDescriptor { $0 }
        var descriptors = [socket, wake.fd].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let deadline = timeout < 0 ? nil : ContinuousClock.now + .milliseconds(timeout)
        let outcome = try await Readiness.wait(on: loop, for: &descriptors, deadline: deadline)
        if descriptors[0].revents != 0 { return true }
        if descriptors[1].revents != 0 { throw CancellationError() }
        return outcome == .ready
    }

    /// Reads queued events without blocking.
    func drainEvents() throws -> [NL80211Message] {
        var out: [NL80211Message] = []
        while case .messages(let messages) = try events.receive() {
            out += messages.filter { $0.type == family.id }.compactMap { NL80211Message.parse($0.payload) }
        }
        return out
    }

    /// A station's details now (for a client, its access point: the signal), or nothing when the
    /// kernel no longer knows it (a disconnect racing the request); every station of the
    /// interface when `mac` is nil.
    func station(index: Int32, mac: MACAddress?) throws -> [NL80211Message] {
        let id = family.id
        guard let mac else { return try query { NL80211Request.stations(family: id, index: index, sequence: $0) } }
        return try query { NL80211Request.station(family: id, index: index, mac: mac, sequence: $0) }
    }

    private func query(_ request: (UInt32) -> NetlinkMessage) throws -> [NL80211Message] {
        sequence &+= 1
        let message = request(sequence)
        try requests.send(message)
        return try NL80211Client.receiveReply(on: requests, to: message)
            .filter { $0.type == family.id }
            .compactMap { NL80211Message.parse($0.payload) }
    }

    /// Collects the reply to `request`: a dump's messages up to `NLMSG_DONE`; otherwise the
    /// answer up to the acknowledgement the request asked for (`NLM_F_ACK`), so no stale
    /// acknowledgement is left queued for the next request. An `NLMSG_ERROR` carrying an errno
    /// ends either and is returned with the rest.
    private static func receiveReply(on socket: NetlinkSocket, to request: NetlinkMessage) throws -> [NetlinkMessage] {
        let isDump = request.flags & UInt16(NLM_F_DUMP) == UInt16(NLM_F_DUMP)
        var collected: [NetlinkMessage] = []
        while true {
            guard try socket.waitReadable(wake: nil, timeout: .seconds(5)) else {
                throw SystemCallError(call: "poll", errno: Errno(rawValue: ETIMEDOUT))
            }
            guard case .messages(let messages) = try socket.receive() else { continue }
            for message in messages where message.sequence == request.sequence {
                if message.type == UInt16(NLMSG_DONE) { return collected }
                if message.type == UInt16(NLMSG_ERROR) {
                    if message.errorCode?.rawValue != 0 { collected.append(message) }
                    return collected
                }
                collected.append(message)
                if isDump && message.flags & UInt16(NLM_F_MULTI) == 0 { return collected }
            }
        }
    }
}
