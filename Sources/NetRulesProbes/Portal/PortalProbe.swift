import NetRulesCore
import NetRulesHTTP
import NetRulesSystem

/// The observer behind `connectivity` and `portal.url`.
///
/// Runs the probes of the top-level `connectivity:` map at start, whenever ``recheck()`` is
/// called (the daemon calls it when links, addresses, the gateway or the Wi-Fi change), and
/// on a schedule: 1 s doubling while not online, `onlineInterval` once online (see
/// `PortalSchedule`). It reports `connectivity` (`online`, `portal` or `offline`) and
/// `portal.url` (absent unless `portal`) whenever either changes. Each classification binds
/// its requests to the interface of the default route at that moment.
///
/// Start it only when the rules read `connectivity` (`RuleSet.demand.needsConnectivity`).
package struct PortalProbe: Observer {
    package let name = "portal"

    package var ownedKeys: Set<FactKey> { [.connectivity, .portalURL] }

    /// The facts whose change means "the network changed": whoever runs the probe calls
    /// `recheck()` when one of them, or any `interfaces.NAME`, changes.
    package static let recheckKeys: Set<FactKey> = [.ip, .gateway, .gateway6, .ssid, .bssid, .network]
    package static let recheckNamespaces: Set<Substring> = ["interfaces"]

    /// What is probed and what counts as online.
    package let settings: ConnectivitySettings
    private let clock: any Clock<Duration>
    private let signal = RecheckSignal()
    private let classify: @Sendable () async -> PortalVerdict

    /// Creates the observer.
    ///
    /// - Parameters:
    ///   - settings: The probes and their expected answers.
    ///   - loop: The event loop the probes wait on; its timers pace the re-checks.
    ///   - bindToDefaultRoute: Whether to bind each probe to the default route's interface.
    package init(settings: ConnectivitySettings, loop: ThreadExecutor, bindToDefaultRoute: Bool = true) {
        self.init(
            settings: settings, clock: QuietClock(loop: loop), executor: .dedicatedThreads, loop: loop,
            bindToDefaultRoute: bindToDefaultRoute)
    }

    /// Creates the observer with an executor for its blocking work (tests use a namespace).
    package init(
        settings: ConnectivitySettings, clock: any Clock<Duration>, executor: BlockingExecutor, loop: ThreadExecutor,
        bindToDefaultRoute: Bool
    ) {
        self.init(settings: settings, clock: clock) {
            let interface = bindToDefaultRoute ? await executor.run { DefaultRoute.interfaceName() } : nil
            let classifier = PortalClassifier(
                executor: executor, loop: loop, timeout: settings.timeout, interface: interface)
            return await classifier.classify(settings.probes)
        }
    }

    /// Creates the observer around any classification (tests count and script verdicts).
    package init(
        settings: ConnectivitySettings, clock: any Clock<Duration>,
        classify: @escaping @Sendable () async -> PortalVerdict
    ) {
        self.settings = settings
        self.clock = clock
        self.classify = classify
    }

    /// Probes again now and restarts the backoff; call it when the network changes.
    ///
    /// Safe from any thread. A recheck during a probe runs another probe right after it.
    package func recheck() {
        signal.signal()
    }

    /// Probes until cancelled. Never throws: a failed probe is a verdict (`offline`).
    package func run(reporting updates: FactReporter) async throws {
        var schedule = PortalSchedule(onlineInterval: settings.onlineInterval)
        var last: (FactValue, FactState)?
        while !Task.isCancelled {
            let verdict = await classify()
            if Task.isCancelled { return }
            let connectivity = FactValue.string(verdict.connectivity.rawValue)
            let url: FactState = verdict.portalURL.map { .value(.string($0)) } ?? .absent
            if last == nil || last!.0 != connectivity || last!.1 != url {
                updates.yield(FactUpdate([.connectivity: .value(connectivity), .portalURL: url]))
                last = (connectivity, url)
            }
            let delay = schedule.delay(after: verdict.connectivity)
            if await waitForTimerOrRecheck(delay) {
                schedule.reset()
            }
        }
    }

    /// Waits for `delay` on the clock or a recheck, whichever comes first; true for a recheck.
    private func waitForTimerOrRecheck(_ delay: Duration) async -> Bool {
        let clock = self.clock
        let signal = self.signal
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do { try await clock.sleep(for: delay) } catch { return false }
                return false
            }
            group.addTask {
                await signal.wait()
                return !Task.isCancelled
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
