@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// The built-in Wi-Fi observer over nl80211: `ssid`, `bssid`, `signal`, `frequency`, `interface`.
///
/// At start it reads each wireless interface's association; then it waits for nl80211's `mlme`
/// events (connect, roam, disconnect) and reads again. `signal` is sampled at those moments, not
/// polled. Where the kernel has no nl80211, it says so once through the logger, reports the Wi-Fi
/// facts as unknown (not absent: nothing can tell), and idles until cancelled, so the other
/// observers keep working.
public struct WiFiObserver: Observer {
    /// `wifi`.
    public let name = "wifi"
    let logger: @Sendable (String) -> Void

    /// Creates the observer.
    /// - Parameter logger: receives the one-time notice when nl80211 is missing.
    public init(logger: @escaping @Sendable (String) -> Void = { _ in }) {
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
        let wake = try WakeEvent()
        let available = try await withTaskCancellationHandler {
            try await BlockingThread.run(name: "netrules-wifi") { () throws -> Bool in
                guard let client = try NL80211Client.open() else { return false }
                var reported: [FactKey: FactState] = [:]
                func report(_ facts: [FactKey: FactState]) {
                    let update = NetworkTable.changes(from: reported, to: facts)
                    guard !update.isEmpty else { return }
                    for (key, state) in update.changes { reported[key] = state }
                    updates.yield(update)
                }
                report(try client.currentState().facts)
                while true {
                    do {
                        guard try client.events.waitReadable(wake: wake) else { continue }
                    } catch is CancellationError {
                        return true
                    }
                    if !(try client.drainEvents()).isEmpty { report(try client.currentState().facts) }
                }
            }
        } onCancel: {
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
}
