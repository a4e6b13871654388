import NetRulesCore
import NetRulesHTTP
import NetRulesSystem

/// The observer behind `hosts.NAME`: probes every watched host on its own schedule.
///
/// Give it the hosts the loaded rules read (`RuleSet.demand.hosts`); hosts are de-duplicated by
/// name, so ten rules about `intranet` share one prober. Each host runs a round every
/// `interval`: up to `tries` ICMP echoes (or TCP connections for `name:port`) of `timeout`
/// each, stopping at the first success. It reports `reachable` or `unreachable` after the
/// first round and then only on change. A flapping host is reported as it flaps: damping is
/// the rule's `for:`.
///
/// All ICMP hosts share one ``ICMPPinger`` (one socket per address family).
package struct HostProber: Observer {
    /// The value reported for a host that answered this round.
    package static let reachable: FactValue = "reachable"
    /// The value reported for a host that did not answer any try this round.
    package static let unreachable: FactValue = "unreachable"

    package let name = "probes"

    package var ownedKeys: Set<FactKey> { Set(hosts.map { .host($0.name) }) }

    /// The hosts probed, one per name.
    package let hosts: [HostDefinition]
    private let clock: any Clock<Duration>
    private let pinger: ICMPPinger?
    private let executor: BlockingExecutor
    private let loop: ThreadExecutor

    /// Creates a prober for `hosts`.
    ///
    /// - Parameters:
    ///   - hosts: The watched hosts; a repeated name keeps its first definition.
    ///   - loop: The event loop the probes wait on; its timers pace the rounds.
    package init(hosts: [HostDefinition], loop: ThreadExecutor) {
        self.init(hosts: hosts, loop: loop, clock: QuietClock(loop: loop), pinger: nil, executor: .dedicatedThreads)
    }

    /// Creates a prober with a given clock, pinger and executor (tests pass ones inside a namespace).
    package init(
        hosts: [HostDefinition], loop: ThreadExecutor, clock: any Clock<Duration>, pinger: ICMPPinger?,
        executor: BlockingExecutor
    ) {
        var seen = Set<String>()
        self.hosts = hosts.filter { seen.insert($0.name).inserted }
        self.loop = loop
        self.clock = clock
        self.pinger = pinger
        self.executor = executor
    }

    /// Probes until cancelled.
    ///
    /// - Throws: ``ICMPError`` when some host needs ICMP and no ICMP socket can be opened
    ///   (the message names `net.ipv4.ping_group_range`).
    package func run(reporting updates: FactReporter) async throws {
        var pinger = self.pinger
        if pinger == nil, hosts.contains(where: { $0.port == nil }) {
            do {
                pinger = try ICMPPinger(loop: loop)
            } catch {
                let names = hosts.filter { $0.port == nil }.map(\.name)
                throw HostProbeError(hosts: names, cause: error)
            }
        }
        defer { if self.pinger == nil { pinger?.close() } }
        let check = HostCheck(pinger: pinger, executor: executor, loop: loop)
        await withTaskGroup(of: Void.self) { group in
            for host in hosts {
                group.addTask { await watch(host, check: check, updates: updates) }
            }
        }
    }

    private func watch(_ host: HostDefinition, check: HostCheck, updates: FactReporter) async {
        var last: FactValue?
        while !Task.isCancelled {
            let value = await check.isReachable(host) ? Self.reachable : Self.unreachable
            if Task.isCancelled { return }
            if value != last {
                updates.yield(FactUpdate(values: [.host(host.name): value]))
                last = value
            }
            do {
                try await clock.sleep(for: host.interval)
            } catch {
                return
            }
        }
    }
}
