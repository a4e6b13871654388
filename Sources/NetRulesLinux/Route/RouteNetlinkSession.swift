internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Keeps a `NetworkTable` equal to the kernel's: one dump, then events, and a full resync
/// whenever the kernel says events were lost.
///
/// Not thread-safe: confined to the reader thread that created it (its socket lives in that
/// thread's network namespace).
///
/// Dumps go over a second socket, so a small event buffer (or a flood of events) can never
/// starve a dump reply. Events that queue on the event socket while a dump runs are applied after
/// it; each carries the object's whole state, so replaying them converges on the kernel's
/// latest state even when the dump already showed it.
final class RouteNetlinkSession {
    /// Subscribed to the multicast groups; only events arrive here.
    let socket: NetlinkSocket
    /// For dump requests and their replies.
    private let dumpSocket: NetlinkSocket
    private(set) var table = NetworkTable()
    private var sequence: UInt32 = 1
    /// How many full resyncs followed a lost-event overflow (`ENOBUFS`), for logs and tests.
    private(set) var overflowResyncs = 0
    private let logger: Logger

    /// Opens the socket in the calling thread's network namespace.
    /// - Parameters:
    ///   - subscribe: join the multicast groups for events (false for a one-shot snapshot).
    ///   - receiveBufferSize: the kernel receive buffer, nil for the system default.
    ///   - logger: told of each lost-event overflow, as a warning.
    init(subscribe: Bool, receiveBufferSize: Int? = nil, logger: Logger = .disabled) throws {
        socket = try NetlinkSocket(protocol: NETLINK_ROUTE)
        dumpSocket = try NetlinkSocket(protocol: NETLINK_ROUTE)
        try dumpSocket.setReceiveBufferSize(1 << 20)
        self.logger = logger
        if let receiveBufferSize { try socket.setReceiveBufferSize(receiveBufferSize) }
        if subscribe {
            for group in RouteNetlinkRequest.groups { try socket.join(group: group) }
        }
    }

    deinit {
        socket.close()
        dumpSocket.close()
    }

    /// Replaces the whole table with a fresh dump, repeating it until no event was lost meanwhile.
    func resyncAll() throws {
        try resync(NetworkTable.Kind.allCases)
    }

    /// Dumps `kinds` again, repeating a dump the kernel marks as interrupted by a concurrent change.
    func resync(_ kinds: [NetworkTable.Kind]) throws {
        for kind in kinds {
            var attempt = 0
            while true {
                attempt += 1
                do {
                    let objects = try dump(kind)
                    table.removeAll(kind)
                    for event in objects { table.apply(event) }
                    break
                } catch DumpRestart.interrupted where attempt < 100 {
                    continue
                }
            }
        }
    }

    private enum DumpRestart: Error { case interrupted }

    /// Sends one dump request and collects the objects of its reply.
    private func dump(_ kind: NetworkTable.Kind) throws -> [RouteNetlinkEvent] {
        sequence &+= 1
        let ours = sequence
        try dumpSocket.send(RouteNetlinkRequest.dump(kind, sequence: ours))
        var interrupted = false
        var objects: [RouteNetlinkEvent] = []
        while true {
            guard try dumpSocket.waitReadable(wake: nil, timeout: .seconds(5)) else {
                throw SystemCallError(call: "poll", errno: Errno(rawValue: ETIMEDOUT))
            }
            guard case .messages(let messages) = try dumpSocket.receive() else { continue }
            for message in messages where message.sequence == ours && message.portID == dumpSocket.portID {
                if message.isDumpInterrupted { interrupted = true }
                if message.type == UInt16(NLMSG_DONE) {
                    if interrupted { throw DumpRestart.interrupted }
                    return objects
                }
                if let error = message.errorCode, error.rawValue != 0 {
                    throw SystemCallError(call: "netlink dump", errno: error)
                }
                if let event = RouteNetlinkEvent(message) { objects.append(event) }
            }
        }
    }

    /// Asks the kernel to resolve a neighbour (`RouteNetlinkRequest.resolveNeighbour`); the answer
    /// arrives as an event. Sent on the event socket without an ack: a refusal comes back as an
    /// error message `drainEvents` skips, and the neighbour stays unresolved (unknown).
    func resolveNeighbour(_ key: NeighbourKey) {
        sequence &+= 1
        do {
            try socket.send(
                RouteNetlinkRequest.resolveNeighbour(index: key.index, address: key.destination, sequence: sequence))
        } catch {
            // Not fatal: the MAC stays unknown until traffic to the neighbour fills the table.
            logger.info("netlink: could not ask the kernel to resolve \(key.destination): \(error)")
        }
    }

    /// Reads and drops everything queued on the event socket.
    private func discardQueuedEvents() throws {
        while true {
            do {
                guard case .messages = try socket.receive() else { return }
            } catch Errno.noBufferSpace {
                continue
            }
        }
    }

    /// What `drainEvents` found.
    struct Drained: Equatable {
        /// Whether any event was applied (or a resync replaced the table).
        var changed = false
        /// Whether the route table must be dumped again (call `resync([.routes])` after reporting).
        var routesNeedResync = false
        /// Whether the kernel dropped events (ENOBUFS): the queued ones were discarded and the
        /// whole table must be dumped again (`resyncAll()`) before events are read on.
        var needsFullResync = false
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
                logger.warning("netlink: event queue overflowed (ENOBUFS); resynchronising from a full dump")
                // The events still queued are older than the lost ones; replayed after the dump they
                // would resurrect state whose later change was dropped (a deleted address), so drop them.
                // The dump is the caller's to run, off the event loop (it waits for the kernel).
                try discardQueuedEvents()
                return Drained(changed: drained.changed, routesNeedResync: false, needsFullResync: true)
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
