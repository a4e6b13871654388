@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// The built-in observer of interfaces, addresses, routes and neighbours, over rtnetlink.
///
/// It owns the facts `interfaces.NAME`, `ip`, `gateway`, `gateway.mac`, `gateway6` and `network`.
/// One full dump at start, then kernel events, with no polling: when idle, its reader thread sleeps
/// in `poll` and never wakes. When the kernel reports lost events (`ENOBUFS`), it dumps everything
/// again and reports the difference, so the facts never silently diverge from the kernel.
///
/// The reader is a dedicated thread, not a task, so a blocked read never parks the cooperative pool.
package struct LinuxNetworkObserver: Observer {
    /// `netlink`.
    package let name = "netlink"
    /// It reports every interface there is: one it never named does not exist.
    package var completeNamespaces: Set<String> { ["interfaces"] }
    /// A network namespace to observe (`/run/netns/NAME`), nil for the process's own.
    package var namespacePath: String?
    /// The netlink socket's receive buffer in bytes, nil for the system default.
    package var receiveBufferSize: Int?
    let logger: Logger
    let statistics: Statistics

    /// Creates the observer.
    /// - Parameters:
    ///   - namespacePath: a network namespace file to observe instead of the process's own.
    ///   - receiveBufferSize: the kernel receive buffer; the default (about 200 KiB) rarely overflows.
    ///   - logger: the parent logger; the observer logs as `netrules.observers.netlink`, an overflow
    ///     and resync as a warning.
    package init(
        namespacePath: String? = nil,
        receiveBufferSize: Int? = 1 << 20,
        logger: Logger = .disabled
    ) {
        self.namespacePath = namespacePath
        self.receiveBufferSize = receiveBufferSize
        self.logger = logger.child("netrules.observers.netlink")
        self.statistics = Statistics()
    }

    /// Counters a test or benchmark can read while the observer runs.
    final class Statistics: Sendable {
        private let state = Mutex((overflowResyncs: 0, threadID: pid_t(0), reports: 0))

        var overflowResyncs: Int { state.withLock { $0.overflowResyncs } }
        /// The reader thread's kernel id, for `/proc/self/task/TID/status`.
        var threadID: pid_t { state.withLock { $0.threadID } }
        var reports: Int { state.withLock { $0.reports } }

        func record(overflowResyncs: Int) { state.withLock { $0.overflowResyncs = overflowResyncs } }
        func record(threadID: pid_t) { state.withLock { $0.threadID = threadID } }
        func recordReport() { state.withLock { $0.reports += 1 } }
    }

    /// Reports the facts until the task is cancelled.
    /// - Throws: `SystemCallError` when the netlink socket cannot be opened or fails.
    package func run(reporting updates: AsyncStream<FactUpdate>.Continuation) async throws {
        let wake = try WakeEvent()
        try await withTaskCancellationHandler {
            try await DedicatedThread.spawnAndWait(name: "netrules-netlink", networkNamespace: namespacePath) {
                try readLoop(wake: wake, updates: updates)
            }
        } onCancel: {
            wake.signal()
        }
    }

    private func readLoop(wake: WakeEvent, updates: AsyncStream<FactUpdate>.Continuation) throws {
        statistics.record(threadID: sys_gettid())
        let session = try RouteNetlinkSession(subscribe: true, receiveBufferSize: receiveBufferSize, logger: logger)
        try session.resyncAll()
        var reported: [FactKey: FactState] = [:]
        // Whether each link is wireless, by index and name: sysfs is asked once per link, not for
        // every link at every event (a new link, or a renamed one, is asked again).
        var wirelessByLink: [Int32: (name: String, isWireless: Bool)] = [:]
        func report() {
            let table = session.table
            var wireless: Set<String> = []
            var seen: [Int32: (name: String, isWireless: Bool)] = [:]
            for (index, link) in table.links {
                let known = wirelessByLink[index]
                let isWireless =
                    known?.name == link.name ? known!.isWireless : WirelessInterfaces.isWireless(link.name)
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
        report()
        while true {
            do {
                guard try session.socket.waitReadable(wake: wake) else { continue }
            } catch is CancellationError {
                return
            }
            let drained = try session.drainEvents()
            if drained.changed { report() }
            if drained.routesNeedResync {
                try session.resync([.routes])
                report()
            }
        }
    }
}
