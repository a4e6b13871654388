@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// The built-in observer of interfaces, addresses, routes and neighbours, over rtnetlink.
///
/// It owns the facts `interfaces.NAME`, `ip`, `gateway`, `gateway.mac`, `gateway6` and `network`,
/// and reports the VPN interfaces into `vpn`, which it shares with NetworkManager (`VPNNames`).
/// One full dump at start, then kernel events, with no polling: when idle, the event loop that reads
/// them (`NetlinkEventReader`) sleeps in `poll` and never wakes. When the kernel reports lost events
/// (`ENOBUFS`), it dumps everything again and reports the difference, so the facts never silently
/// diverge from the kernel.
///
/// Nothing here blocks a task: the first dump runs on a thread of its own, and events are read
/// without blocking when the loop's `poll` says the socket is readable.
package struct LinuxNetworkObserver: Observer {
    /// `netlink`.
    package let name = "netlink"
    /// It reports every interface there is: one it never named does not exist.
    package var completeNamespaces: Set<String> { ["interfaces"] }
    /// A network namespace to observe (`/run/netns/NAME`), nil for the process's own.
    package var namespacePath: String?
    /// The netlink socket's receive buffer in bytes, nil for the system default.
    package var receiveBufferSize: Int?
    /// Where its VPN interfaces meet NetworkManager's VPN connections in `vpn`.
    package var vpnNames: VPNNames
    /// The event loop that reads the kernel's events.
    let loop: ThreadExecutor
    let logger: Logger
    let statistics: Statistics

    /// Creates the observer.
    /// - Parameters:
    ///   - loop: the event loop that reads the kernel's events: the daemon's, so the engine and
    ///     the actions an event triggers run on the same thread right after the read.
    ///   - namespacePath: a network namespace file to observe instead of the process's own.
    ///   - receiveBufferSize: the kernel receive buffer; the default (about 200 KiB) rarely overflows.
    ///   - vpnNames: where `vpn` is merged; nil for the process's shared one when observing its own
    ///     namespace (NetworkManager's observer of the system bus uses it too), a private one otherwise.
    ///   - logger: the parent logger; the observer logs as `netrules.observers.netlink`, an overflow
    ///     and resync as a warning.
    package init(
        loop: ThreadExecutor,
        namespacePath: String? = nil,
        receiveBufferSize: Int? = 1 << 20,
        vpnNames: VPNNames? = nil,
        logger: Logger = .disabled
    ) {
        self.loop = loop
        self.namespacePath = namespacePath
        self.receiveBufferSize = receiveBufferSize
        self.vpnNames = vpnNames ?? (namespacePath == nil ? .shared : VPNNames())
        self.logger = logger.child("netrules.observers.netlink")
        self.statistics = Statistics()
    }

    /// Counters a test or benchmark can read while the observer runs.
    final class Statistics: Sendable {
        private let state = Mutex((overflowResyncs: 0, threadID: pid_t(0), reports: 0, descriptor: CInt(-1)))

        var overflowResyncs: Int { state.withLock { $0.overflowResyncs } }
        /// The kernel id of the thread that reads the events (the event loop's), for
        /// `/proc/self/task/TID/status`; 0 before the first event.
        var threadID: pid_t { state.withLock { $0.threadID } }
        var reports: Int { state.withLock { $0.reports } }
        /// The netlink socket's descriptor while events are read, -1 before: a test replaces it
        /// (`dup2` of `/dev/null`) to make the observer fail as a broken socket would.
        var descriptor: CInt { state.withLock { $0.descriptor } }

        func record(overflowResyncs: Int) { state.withLock { $0.overflowResyncs = overflowResyncs } }
        func record(threadID: pid_t) { state.withLock { $0.threadID = threadID } }
        func recordReport() { state.withLock { $0.reports += 1 } }
        func record(descriptor: CInt) { state.withLock { $0.descriptor = descriptor } }
    }

    /// Reports the facts until the task is cancelled.
    ///
    /// The socket is opened and the first dump read on a thread of its own (in `namespacePath`
    /// when set); events are then read on `loop`.
    /// - Throws: `SystemCallError` when the netlink socket cannot be opened or fails.
    package func run(reporting updates: FactReporter) async throws {
        let updates = vpnNames.reporter(wrapping: updates, source: .interfaces)
        let reader = try await DedicatedThread.spawnAndWait(name: "netrules-netlink", networkNamespace: namespacePath) {
            [self] in
            try NetlinkEventReader(
                session: RouteNetlinkSession(subscribe: true, receiveBufferSize: receiveBufferSize, logger: logger),
                updates: updates, statistics: statistics)
        }
        try await reader.readEvents(on: loop)
    }
}
