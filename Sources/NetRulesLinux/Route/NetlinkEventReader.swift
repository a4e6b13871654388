import NetRulesCore
import NetRulesSystem
import Synchronization

/// The netlink observer's reader: keeps the session's table, turns it into facts, and reports
/// what changed; `readEvents(on:)` does so for each kernel event, on an event loop's thread.
///
/// `@unchecked Sendable`: created (socket opened, first dump read, first report made) on the
/// thread that joined the observed namespace, then used only by the loop's watch handler, on the
/// loop's thread; `watch` publishes it to that thread under the loop's lock. `ending` has its own
/// lock.
final class NetlinkEventReader: @unchecked Sendable {
    private let session: RouteNetlinkSession
    private let updates: FactReporter
    private let statistics: LinuxNetworkObserver.Statistics
    /// The facts last reported, to report only what changed.
    private var reported: [FactKey: FactState] = [:]
    /// Whether each link is wireless, by index and name: sysfs is asked once per link, not for
    /// every link at every event (a new link, or a renamed one, is asked again).
    private var wirelessByLink: [Int32: (name: String, isWireless: Bool)] = [:]
    private var recordedThread = false
    /// The gateway last asked to be resolved, until its neighbour entry appears: the kernel is
    /// asked once per gateway whose entry is missing, not at every event meanwhile.
    private var gatewayAsked: NeighbourKey?
    /// Whether a dump is asked for or under way: the events wait (unwatched) until it is done.
    private var resyncPending = false
    /// How `readEvents` ends: its continuation and watch, once both exist, or that it was cancelled.
    private let ending = Mutex(Ending())

    private struct Ending {
        var continuation: CheckedContinuation<Void, any Error>?
        var watch: (id: DescriptorWatch, loop: ThreadExecutor)?
        var outcome: Result<Void, any Error>?
    }

    /// Reads the whole table and reports it.
    init(
        session: RouteNetlinkSession, updates: FactReporter,
        statistics: LinuxNetworkObserver.Statistics
    ) throws {
        self.session = session
        self.updates = updates
        self.statistics = statistics
        try session.resyncAll()
        report()
    }

    /// Reports each kernel event until the task is cancelled (returns) or the socket fails (throws).
    func readEvents(on loop: ThreadExecutor) async throws {
        // Open until this object goes: the session closes it in its deinit, after the watch ended.
        let fd = try session.socket.descriptor.withFileDescriptor { $0 }
        statistics.record(descriptor: fd)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = ending.withLock { ending in
                    ending.continuation = continuation
                    return ending.outcome
                }
                // Cancelled (or failed) before the watch was in place.
                if let outcome {
                    end(outcome)
                } else {
                    watch(fd, on: loop)
                }
            }
        } onCancel: {
            end(.success(()))
        }
    }

    /// Watches the event socket on `loop`, unless `readEvents` ended meanwhile.
    private func watch(_ fd: CInt, on loop: ThreadExecutor) {
        let watch = loop.watch(fd) { [self] in
            do {
                try readQueuedEvents(fd, on: loop)
            } catch {
                end(.failure(error))
            }
        }
        let ended = ending.withLock { ending -> Bool in
            guard ending.outcome == nil else { return true }
            ending.watch = (watch, loop)
            return false
        }
        if ended { loop.unwatch(watch) }
    }

    /// Ends `readEvents` once: the watch is removed (its handler no longer runs) before it returns.
    private func end(_ outcome: Result<Void, any Error>) {
        let taken = ending.withLock { ending in
            if ending.outcome == nil { ending.outcome = outcome }
            defer {
                ending.continuation = nil
                ending.watch = nil
            }
            return (ending.continuation, ending.watch)
        }
        if let watch = taken.1 { watch.loop.unwatch(watch.id) }
        taken.0?.resume(with: outcome)
    }

    /// Applies what the kernel queued and reports the change. When the kernel dropped events, or
    /// an event calls for the routes to be dumped again, the dump runs off the loop (it waits for
    /// the kernel's answer, `LoopGuard`) while the events wait: the watch is removed, and made again
    /// once the dump is applied. A route dump first waits until the loop is idle: what the report
    /// set off (the engine, the actions it fired) goes first, and facts that do not depend on
    /// routes (an interface going down) are not held back by it.
    private func readQueuedEvents(_ fd: CInt, on loop: ThreadExecutor) throws {
        if !recordedThread {
            recordedThread = true
            statistics.record(threadID: sys_gettid())
        }
        guard !resyncPending else { return }
        let drained = try session.drainEvents()
        if drained.changed { report() }
        guard drained.needsFullResync || drained.routesNeedResync else { return }
        resyncPending = true
        // The session is this thread's alone again only once the dump is applied.
        if let watch = ending.withLock({ ending in ending.watch.take() }) { watch.loop.unwatch(watch.id) }
        let kinds = drained.needsFullResync ? NetworkTable.Kind.allCases : [.routes]
        let dump: @Sendable () -> Void = { [self] in
            BlockingPool.shared.spawn { [self] in
                let dumped = Result { try session.resync(kinds) }
                _ = loop.at(.now) { [self] in
                    resyncPending = false
                    switch dumped {
                    case .success:
                        report()
                        guard ending.withLock({ $0.outcome == nil }) else { return }
                        watch(fd, on: loop)
                    case .failure(let error):
                        end(.failure(error))
                    }
                }
            }
        }
        if drained.needsFullResync { dump() } else { loop.whenIdle(dump) }
    }

    private func report() {
        let table = session.table
        resolveGatewayIfNeeded(table)
        var wireless: Set<String> = []
        var seen: [Int32: (name: String, isWireless: Bool)] = [:]
        for (index, link) in table.links {
            let known = wirelessByLink[index]
            let isWireless = known?.name == link.name ? known!.isWireless : WirelessInterfaces.isWireless(link.name)
            seen[index] = (link.name, isWireless)
            if isWireless { wireless.insert(link.name) }
        }
        wirelessByLink = seen
        let facts = table.facts(wireless: wireless)
        let update = NetworkTable.changes(from: reported, to: facts)
        statistics.record(overflowResyncs: session.overflowResyncs)
        guard !update.isEmpty else { return }
        for (key, state) in update.changes { reported[key] = state }
        statistics.recordReport()
        updates.yield(update)
    }

    /// Asks the kernel to resolve the gateway when its MAC is unknown for want of a neighbour
    /// entry (after a link change the table fills only when something sends to the gateway), so
    /// `gateway.mac` becomes the MAC, or absent when nobody answers, without waiting for traffic.
    private func resolveGatewayIfNeeded(_ table: NetworkTable) {
        if let asked = gatewayAsked, table.neighbours[asked] != nil { gatewayAsked = nil }
        guard let key = table.gatewayToResolve, key != gatewayAsked else { return }
        gatewayAsked = key
        session.resolveNeighbour(key)
    }
}
