internal import CNetRulesLinux
@preconcurrency import Glibc

/// Keeps a `NetworkTable` equal to the kernel's: one dump, then events, and a full resync
/// whenever the kernel says events were lost.
///
/// Not thread-safe: confined to the reader thread that created it (its socket lives in that
/// thread's network namespace).
final class RouteNetlinkSession {
    let socket: NetlinkSocket
    private(set) var table = NetworkTable()
    private var sequence: UInt32 = 1
    /// How many full resyncs followed a lost-event overflow (`ENOBUFS`), for logs and tests.
    private(set) var overflowResyncs = 0
    private let log: (String) -> Void

    /// Opens the socket in the calling thread's network namespace.
    /// - Parameters:
    ///   - subscribe: join the multicast groups for events (false for a one-shot snapshot).
    ///   - receiveBufferSize: the kernel receive buffer, nil for the system default.
    init(subscribe: Bool, receiveBufferSize: Int? = nil, log: @escaping (String) -> Void = { _ in }) throws {
        socket = try NetlinkSocket(protocol: NETLINK_ROUTE)
        self.log = log
        if let receiveBufferSize { try socket.setReceiveBufferSize(receiveBufferSize) }
        if subscribe {
            for group in RouteNetlinkRequest.groups { try socket.join(group: group) }
        }
    }

    deinit { socket.close() }

    /// Replaces the whole table with a fresh dump, repeating it until no event was lost meanwhile.
    func resyncAll() throws {
        try resync(NetworkTable.Kind.allCases)
    }

    /// Dumps `kinds` again. Events that arrive meanwhile are applied in arrival order, which keeps the
    /// table consistent: a dump chunk is generated after every event queued before it.
    func resync(_ kinds: [NetworkTable.Kind]) throws {
        var attempt = 0
        while true {
            attempt += 1
            do {
                var routesNeedResync = false
                for kind in kinds {
                    table.removeAll(kind)
                    if try dump(kind) { routesNeedResync = true }
                }
                // A link went down while we dumped something else: its IPv4 routes may be gone silently.
                if routesNeedResync && !kinds.contains(.routes) {
                    table.removeAll(.routes)
                    _ = try dump(.routes)
                }
                return
            } catch DumpRestart.interrupted where attempt < 100 {
                continue
            } catch Errno.noBufferSpace where attempt < 100 {
                // Lost events during a dump: start over with everything, never a partial table.
                overflowResyncs += 1
                return try resync(NetworkTable.Kind.allCases)
            }
        }
    }

    private enum DumpRestart: Error { case interrupted }

    /// Sends one dump request and applies its reply and any interleaved events.
    /// - Returns: whether an interleaved event asked for a route resync.
    private func dump(_ kind: NetworkTable.Kind) throws -> Bool {
        sequence &+= 1
        let ours = sequence
        try socket.send(RouteNetlinkRequest.dump(kind, sequence: ours))
        var interrupted = false
        var routesNeedResync = false
        while true {
            guard try socket.waitReadable(wake: nil, timeout: 5000) else {
                throw SystemCallError(call: "poll", errno: Errno(rawValue: ETIMEDOUT))
            }
            guard case .messages(let messages) = try socket.receive() else { continue }
            for message in messages {
                // Notifications caused by another process's request carry that process's sequence number and
                // port, so a reply is recognised by both.
                if message.sequence == ours && message.portID == socket.portID {
                    if message.isDumpInterrupted { interrupted = true }
                    if message.type == UInt16(NLMSG_DONE) {
                        if interrupted { throw DumpRestart.interrupted }
                        return routesNeedResync
                    }
                    if let error = message.errorCode, error.rawValue != 0 {
                        throw SystemCallError(call: "netlink dump", errno: error)
                    }
                }
                if let event = RouteNetlinkEvent(message), table.apply(event).routesNeedResync {
                    routesNeedResync = true
                }
            }
        }
    }

    /// What `drainEvents` found.
    struct Drained: Equatable {
        /// Whether any event was applied (or a resync replaced the table).
        var changed = false
        /// Whether the route table must be dumped again (call `resync([.routes])` after reporting).
        var routesNeedResync = false
    }

    /// Reads and applies every queued event without blocking.
    ///
    /// Route resyncs are left to the caller, so facts that do not depend on routes (an interface
    /// going down) can be reported first.
    /// - Throws: on socket errors; a lost-event overflow is handled here by a full resync.
    func drainEvents() throws -> Drained {
        var drained = Drained()
        while true {
            let reception: NetlinkSocket.Reception
            do {
                reception = try socket.receive()
            } catch Errno.noBufferSpace {
                overflowResyncs += 1
                log("netlink: event queue overflowed (ENOBUFS); resynchronising from a full dump")
                try resyncAll()
                drained = Drained(changed: true, routesNeedResync: false)
                continue
            }
            guard case .messages(let messages) = reception else { break }
            for message in messages {
                guard let event = RouteNetlinkEvent(message) else { continue }
                drained.changed = true
                if table.apply(event).routesNeedResync { drained.routesNeedResync = true }
            }
        }
        return drained
    }
}
