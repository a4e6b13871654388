@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// The built-in Wi-Fi observer over nl80211: `ssid`, `bssid`, `signal`, `frequency`, `interface`.
///
/// At start it reads each wireless interface's association; then it waits for nl80211's `mlme`
/// events (connect, roam, disconnect) and reads again. `signal` moves without events: while
/// `signalSampling` has an interval (something reads `signal`), the access point is sampled at
/// that interval (`GET_STATION`) and a move past `WiFiState.signalHysteresis` is reported; with
/// none, it waits without a deadline, so an idle observer never wakes. The waits are `Readiness`'s:
/// a watch of the event socket on the loop it is given, no thread of its own. Where the
/// kernel has no nl80211, it says so once through the logger, reports the Wi-Fi facts as unknown
/// (not absent: nothing can tell), and idles until cancelled, so the other observers keep working.
package struct WiFiObserver: Observer {
    /// `wifi`.
    package let name = "wifi"
    let logger: Logger
    /// How often to sample `signal`, changeable while the observer runs.
    package let signalSampling: SignalSampling
    /// The event loop that waits for nl80211's events.
    let loop: ThreadExecutor

    /// Creates the observer.
    /// - Parameters:
    ///   - loop: the event loop that waits for nl80211's events.
    ///   - signalSampling: how often to sample `signal`; never, by default.
    ///   - logger: the parent logger; the observer logs as `netrules.observers.wifi`, the one-time
    ///     notice that nl80211 is missing as a warning.
    package init(loop: ThreadExecutor, signalSampling: SignalSampling = SignalSampling(), logger: Logger = .disabled) {
        self.loop = loop
        self.signalSampling = signalSampling
        self.logger = logger.child("netrules.observers.wifi")
    }

    /// The Wi-Fi facts now: values or absent with nl80211, unknown without it.
    /// - Throws: `SystemCallError` when the generic netlink socket fails.
    package static func currentFacts() throws -> [FactKey: FactState] {
        guard let client = try NL80211Client.open() else { return WiFiState.unavailableFacts }
        return try client.currentState().facts
    }

    /// Reports the Wi-Fi facts until cancelled.
    package func run(reporting updates: FactReporter) async throws {
        // Ends a wait when the sampling interval changes; cancellation ends it through `Readiness`.
        let wake = try WakeEvent()
        defer { wake.close() }
        let stop = StopFlag()
        let sampling = signalSampling
        sampling.listen(wake)
        defer { sampling.stopListening(wake) }
        let available = try await withTaskCancellationHandler {
            // Opening asks the kernel for the family and waits for the answer: off the loop.
            let opened = await BlockingPool.shared.run { Result { try NL80211Client.open().map(LentSession.init) } }
            guard let client = try opened.get()?.session else { return false }
            try await Self.watch(
                client, on: loop, wake: wake, stop: stop, sampling: sampling, now: { .now },
                report: { updates.yield($0) })
            return true
        } onCancel: {
            stop.raise()
        }
        guard !available else { return }
        logger.warning(
            "wifi: this kernel has no nl80211 (cfg80211 is not available); ssid, bssid, signal and frequency stay unknown"
        )
        // The facts are unknown already; reporting them as unknown would erase what an observer
        // plugin reports for them. Nothing will change: wait for cancellation without a timer (a
        // long Task.sleep re-arms a libdispatch timer every second on Linux).
        let (cancelled, keepOpen) = AsyncStream.makeStream(of: Void.self)
        for await _ in cancelled {}
        withExtendedLifetime(keepOpen) {}
    }
}
