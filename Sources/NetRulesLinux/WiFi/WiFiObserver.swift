@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// The built-in Wi-Fi observer over nl80211: `ssid`, `bssid`, `signal`, `frequency`, `interface`.
///
/// At start it reads each wireless interface's association; then it waits for nl80211's `mlme`
/// events (connect, roam, disconnect) and reads again. `signal` moves without events: while
/// `signalSampling` has an interval (something reads `signal`), the access point is sampled at
/// that interval (`GET_STATION`) and a move past `WiFiState.signalHysteresis` is reported; with
/// none, the thread waits in `poll` without a timeout, so an idle observer never wakes. Where the
/// kernel has no nl80211, it says so once through the logger, reports the Wi-Fi facts as unknown
/// (not absent: nothing can tell), and idles until cancelled, so the other observers keep working.
public struct WiFiObserver: Observer {
    /// `wifi`.
    public let name = "wifi"
    let logger: @Sendable (String) -> Void
    /// How often to sample `signal`, changeable while the observer runs.
    public let signalSampling: SignalSampling

    /// Creates the observer.
    /// - Parameters:
    ///   - signalSampling: how often to sample `signal`; never, by default.
    ///   - logger: receives the one-time notice when nl80211 is missing.
    public init(
        signalSampling: SignalSampling = SignalSampling(), logger: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.signalSampling = signalSampling
        self.logger = logger
    }

    /// The Wi-Fi facts now: values or absent with nl80211, unknown without it.
    /// - Throws: `SystemCallError` when the generic netlink socket fails.
    public static func currentFacts() throws -> [FactKey: FactState] {
        guard let client = try NL80211Client.open() else { return WiFiState.unavailableFacts }
        return try client.currentState().facts
    }

    /// Reports the Wi-Fi facts until cancelled.
    public func run(reporting updates: AsyncStream<FactUpdate>.Continuation) async throws {
        // One wake event for both reasons to leave `poll`: cancellation (`stop` raised first) and
        // a new sampling interval.
        let wake = try WakeEvent()
        let stop = StopFlag()
        let sampling = signalSampling
        sampling.listen(wake)
        defer { sampling.stopListening(wake) }
        let available = try await withTaskCancellationHandler {
            try await BlockingThread.run(name: "netrules-wifi") { () throws -> Bool in
                guard let client = try NL80211Client.open() else { return false }
                try Self.watch(client, wake: wake, stop: stop, sampling: sampling, updates: updates)
                return true
            }
        } onCancel: {
            stop.raise()
            wake.signal()
        }
        guard !available else { return }
        logger(
            "wifi: this kernel has no nl80211 (cfg80211 is not available); ssid, bssid, signal and frequency stay unknown"
        )
        // The facts are unknown already; reporting them as unknown would erase what an observer
        // plugin reports for them. Nothing will change: wait for cancellation without a timer (a
        // long Task.sleep re-arms a libdispatch timer every second on Linux).
        let (cancelled, keepOpen) = AsyncStream.makeStream(of: Void.self)
        for await _ in cancelled {}
        withExtendedLifetime(keepOpen) {}
    }

    /// Reports the facts, then waits for association events and, while sampling, for each
    /// sample's deadline (the `poll` timeout: a dedicated thread arms no other timer); returns
    /// once `stop` is raised.
    private static func watch(
        _ client: NL80211Client, wake: WakeEvent, stop: StopFlag, sampling: SignalSampling,
        updates: AsyncStream<FactUpdate>.Continuation
    ) throws {
        var reported: [FactKey: FactState] = [:]
        func report(_ facts: [FactKey: FactState]) {
            let update = NetworkTable.changes(from: reported, to: facts)
            guard !update.isEmpty else { return }
            for (key, state) in update.changes { reported[key] = state }
            updates.yield(update)
        }
        var state = try client.currentState()
        report(state.facts)
        var schedule = SignalSchedule()
        while true {
            let timeout = schedule.timeout(
                interval: sampling.interval, isAssociated: state.sampleTarget != nil, now: .now)
            let readable: Bool
            do {
                readable = try client.events.waitReadable(wake: wake, timeout: timeout)
            } catch is CancellationError {
                if stop.isRaised { return }
                // A new interval: clear the wake-up and wait again with the new timeout. `stop` is
                // raised before its signal, so a stop whose signal this reset swallowed is seen here.
                wake.reset()
                if stop.isRaised { return }
                continue
            }
            if readable {
                guard !(try client.drainEvents()).isEmpty else { continue }
                state = try client.currentState()
                report(state.facts)
            } else if schedule.takeDue(now: .now), let target = state.sampleTarget {
                for message in try client.station(index: target.index, mac: target.bssid) {
                    state.applySample(message)
                }
                report(state.facts)
            }
        }
    }
}

/// Raised once, when the observer's task is cancelled; read by its thread.
private final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }

    var isRaised: Bool { raised.load(ordering: .acquiring) }
}
