@preconcurrency import Glibc
import NetRulesCore
import NetRulesDaemonCore
import NetRulesLinux
import NetRulesSystem
import Synchronization

/// The daemon's control socket: a UNIX stream socket on which `netrules status`, `watch` and
/// `explain` ask the running daemon about its facts and rules.
///
/// The protocol is newline-delimited JSON, one request per connection: the client sends one line
/// (`{"version":1,"command":"status"}`), the server answers with one line and closes, or, for
/// `watch`, sends one line per fact change until the client hangs up. See `ControlDocuments` for
/// the answers. Nothing on the socket changes the daemon's state.
///
/// Access: the socket file is mode 0600 and owned by the daemon's user, and each connection's
/// peer credentials (`SO_PEERCRED`) are checked as well: only root and the daemon's own effective
/// user may ask. Others get one error line and are disconnected.
///
/// No blocking call runs on Swift's cooperative pool: descriptors are non-blocking, and every wait
/// is a `poll` on a dedicated thread that task cancellation wakes.
package struct ControlServer: Sendable {
    /// Where the socket file is.
    package var path: String
    /// How long a client may take to send its request line after connecting.
    package var requestTimeout: Duration = .seconds(5)
    /// How long one answer line may wait for a client that does not read, before it is dropped.
    package var writeTimeout: Duration = .seconds(10)
    /// The longest request line accepted, newline excluded.
    package var maximumRequestLength = 64 * 1024
    /// Requests served at once (`status`, `explain`, a `watch` until it starts streaming); more
    /// are refused with an error line.
    package var maximumConnections = 32
    /// `watch` streams at once. They have slots of their own, so however many a user leaves
    /// open, `status` and `explain` still get an answer.
    package var maximumWatchers = 32

    private let queries: any DaemonQueries
    /// The event loop that waits for connections and their bytes.
    private let loop: ThreadExecutor
    private let logger: Logger

    /// Creates a server; nothing happens until `run()`.
    /// - Parameters:
    ///   - path: the socket file, usually `DaemonPaths.controlSocket`.
    ///   - queries: what answers the requests: the daemon.
    ///   - loop: the event loop that waits for connections and their bytes.
    ///   - logger: receives connection problems at `info` and refusals at `notice`.
    package init(path: String, queries: any DaemonQueries, loop: ThreadExecutor, logger: Logger) {
        self.path = path
        self.queries = queries
        self.loop = loop
        self.logger = logger
    }

    /// Listens and serves until the task is cancelled, then closes the socket and removes its file.
    ///
    /// Creates the socket's directory when missing. A socket file left by a daemon that died is
    /// replaced; one that still answers is not.
    /// - Throws: `ControlSocketError` with code `.anotherDaemon` when another daemon answers on
    ///   the socket, or a `SystemCallError` when the socket cannot be set up.
    package func run() async throws {
        try await run(on: listen())
    }

    /// A bound and listening control socket, for `run(on:)`.
    package struct Listener: Sendable {
        let descriptor: FileDescriptor
        let identity: ControlSocketFile.Identity

        /// Closes the socket and removes its file, if it is still this one: for a daemon that
        /// stops before serving on it (invalid rules at start). Harmless after `run(on:)` did so.
        package func discard(at path: String) {
            descriptor.closeDiscardingError()
            ControlSocketFile.remove(path, ifStill: identity)
        }
    }

    /// Binds the socket now, so that a daemon can refuse to start when another one answers on it.
    /// - Throws: as `run()`.
    package func listen() throws -> Listener { try Self.listen(at: path) }

    /// Binds the socket at `path` (see `listen()`), before the server that will use it exists.
    package static func listen(at path: String) throws -> Listener {
        let (descriptor, identity) = try ControlSocketFile.listen(at: path, backlog: 16)
        return Listener(descriptor: descriptor, identity: identity)
    }

    /// Serves on a socket from `listen()` until the task is cancelled, then closes it and removes its file.
    package func run(on bound: Listener) async throws {
        let (listener, identity, path) = (bound.descriptor, bound.identity, self.path)
        logger.info("control socket listening", metadata: [("control.socket", path)])
        let active = ConnectionCount()
        let watchers = ConnectionCount()
        var failure: (any Error)?
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                do {
                    let fd = try listener.withFileDescriptor { $0 }
                    _ = try await Readiness.wait(on: loop, for: fd, events: Int16(POLLIN), timeout: nil)
                    while let connection = try accept(listener) {
                        let admitted = active.value.withLock { count in
                            guard count < maximumConnections else { return false }
                            count += 1
                            return true
                        }
                        group.addTask {
                            defer { connection.closeDiscardingError() }
                            if admitted {
                                let slot = Slot(active)
                                await serve(connection, slot: slot, watchers: watchers)
                                slot.release()
                            } else {
                                refuse(connection, ControlDocuments.error("too many connections; try again"))
                            }
                        }
                    }
                } catch is CancellationError {
                    break
                } catch let error as SystemCallError
                    where [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errno.rawValue)
                {
                    // Out of descriptors: pending connections stay queued; back off instead of spinning.
                    logger.warning("control socket cannot accept", metadata: [("error", "\(error)")])
                    // A cancelled back-off ends early, and the loop's next accept sees the
                    // cancellation.
                    try? await QuietClock(loop: loop).sleep(for: .milliseconds(200))
                } catch {
                    failure = error
                    break
                }
            }
            group.cancelAll()
        }
        listener.closeDiscardingError()
        // The file's checks (lstat) before its removal: on the pool, never the loop (`LoopGuard`).
        await BlockingPool.shared.run { ControlSocketFile.remove(path, ifStill: identity) }
        logger.info("control socket closed", metadata: [("control.socket", path)])
        if let failure { throw failure }
    }

    /// Whether a peer may use the socket: root, or the user the daemon runs as.
    static func admits(peer: uid_t, daemon: uid_t) -> Bool {
        peer == 0 || peer == daemon
    }

    // MARK: - Connections

    /// The next pending connection, or nil when none is waiting.
    private func accept(_ listener: FileDescriptor) throws -> FileDescriptor? {
        let flags = CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue)
        while true {
            let result = try listener.withFileDescriptor { sys_accept4($0, flags) }
            switch result {
            case .failure(let e) where e.rawValue == EAGAIN: return nil
            // The client gave up before we got to it; not our problem.
            case .failure(let e) where e.rawValue == ECONNABORTED: continue
            default: return FileDescriptor(taking: try result.get(call: "accept4"))
            }
        }
    }

    private func serve(_ connection: FileDescriptor, slot: Slot, watchers: ConnectionCount) async {
        let channel = ControlChannel(connection, loop: loop, writeTimeout: writeTimeout)
        do {
            let uid = try connection.withFileDescriptor { sys_getsockopt_peercred($0).map(\.uid) }.get(
                call: "getsockopt")
            guard ControlServer.admits(peer: uid, daemon: sys_geteuid()) else {
                logger.notice("control socket refused a client", metadata: [("peer.uid", "\(uid)")])
                refuse(connection, ControlDocuments.error("permission denied: uid \(uid) may not use this socket"))
                return
            }
            let line: [UInt8]
            switch try await channel.readLine(limit: maximumRequestLength, timeout: requestTimeout) {
            case .line(let bytes): line = bytes
            case .tooLong:
                try await channel.write(ControlDocuments.error("request longer than \(maximumRequestLength) bytes"))
                return
            case .timedOut:
                try await channel.write(ControlDocuments.error("no request within \(requestTimeout)"))
                return
            case .closed:
                return
            }
            switch ControlRequest.parse(line) {
            case .failure(let error):
                try await channel.write(ControlDocuments.error(error.message))
            case .success(.status):
                try await channel.write(
                    ControlDocuments.status(
                        await queries.facts(), outbox: await queries.outbox(), reads: await queries.factKeysRead(),
                        failedObservers: await queries.failedObservers(), failedReload: await queries.failedReload(),
                        mqtt: await queries.mqtt(), paused: await queries.pausedRules()))
            case .success(.facts):
                try await channel.write(
                    ControlDocuments.status(
                        await queries.facts(), reads: await queries.factKeysRead(),
                        sources: await queries.factSources()))
            case .success(.rules):
                var explanations: [Explanation] = []
                for name in await queries.ruleNames() {
                    if let explanation = await queries.explain(rule: name) { explanations.append(explanation) }
                }
                let history = await queries.history(HistoryQuery()) ?? []
                try await channel.write(
                    ControlDocuments.rules(
                        explanations, now: await queries.engineTime(), history: history,
                        paused: await queries.pausedRules(), failedReload: await queries.failedReload()))
            case .success(.reload):
                try await channel.write(ControlDocuments.reload(await queries.reloadOnRequest()))
            case .success(.explain(let rule)):
                if let explanation = await queries.explain(rule: rule) {
                    let paused = await queries.pausedRules().first { $0.rule == rule }
                    try await channel.write(
                        ControlDocuments.explain(explanation, now: await queries.engineTime(), paused: paused))
                } else {
                    try await channel.write(ControlDocuments.error("no rule named '\(rule)'"))
                }
            case .success(.history(let query)):
                guard let entries = await queries.history(query) else {
                    try await channel.write(
                        ControlDocuments.error("this daemon keeps no history (it runs with --history-limit 0)"))
                    return
                }
                for entry in entries { try await channel.write(entry.document) }
            case .success(.watch):
                let admitted = watchers.value.withLock { count in
                    guard count < maximumWatchers else { return false }
                    count += 1
                    return true
                }
                guard admitted else {
                    try await channel.write(
                        ControlDocuments.error("too many watch clients (\(maximumWatchers)); close one and try again"))
                    return
                }
                // A stream may last for hours: it gives its request slot back.
                slot.release()
                defer { watchers.value.withLock { $0 -= 1 } }
                try await watch(channel)
            }
        } catch is CancellationError {
            return
        } catch {
            logger.info("control connection ended", metadata: [("error", "\(error)")])
        }
    }

    /// Streams fact changes until the client hangs up, the daemon's stream ends, or shutdown.
    ///
    /// It starts with the current facts as changes from unknown, like `watch` without a daemon.
    /// The subscription comes first, so no change falls between the two; a change racing the
    /// snapshot may show up twice, which a reader of state changes tolerates.
    private func watch(_ channel: ControlChannel) async throws {
        let changes = await queries.factChanges()
        let at = WallClock.now().rfc3339
        for (key, state) in await queries.facts().known {
            try await channel.write(ControlDocuments.change(FactChange(key: key, old: .unknown, new: state, at: at)))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await channel.waitForHangUp() }
            group.addTask {
                for await change in changes {
                    try await channel.write(ControlDocuments.change(change))
                }
            }
            // Whichever ends first (hang-up, stream end, write failure) ends the other.
            defer { group.cancelAll() }
            _ = try await group.next()
        }
    }

    /// Writes one error line if the socket takes it at once, without waiting for a slow peer.
    private func refuse(_ connection: FileDescriptor, _ document: JSONValue) {
        let bytes = Array((document.compact + "\n").utf8)
        // A refusal is a courtesy to a client that is being turned away; if its socket does not take
        // the line at once (full, or the peer went), closing it says enough.
        _ = try? bytes.withUnsafeBytes { try connection.send($0) }
    }
}

/// The number of connections being served, shared by the accept loop and the connection tasks.
private final class ConnectionCount: Sendable {
    let value = Mutex(0)
}

/// One connection's hold on a `ConnectionCount`, given back exactly once.
private final class Slot: Sendable {
    private let count: ConnectionCount
    private let held = Mutex(true)

    init(_ count: ConnectionCount) { self.count = count }

    func release() {
        guard
            held.withLock({ held in
                defer { held = false }; return held
            })
        else { return }
        count.value.withLock { $0 -= 1 }
    }
}
