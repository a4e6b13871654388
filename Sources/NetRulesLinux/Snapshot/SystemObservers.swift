import NetRulesCore

/// The built-in Linux observers (netlink, dns, wifi), run without a daemon: what `watch` shows
/// when no daemon answers.
package enum SystemObservers {
    /// Runs the observers until the task is cancelled, each one's updates into `continuation`.
    /// - Parameters:
    ///   - continuation: receives every update; the caller chooses its buffering.
    ///   - diagnostics: receives observer notices and failures, one line each, without a newline.
    package static func run(
        reporting continuation: AsyncStream<FactUpdate>.Continuation,
        diagnostics: @escaping @Sendable (String) -> Void
    ) async {
        let observers: [any Observer] = [
            LinuxNetworkObserver(logger: diagnostics),
            ResolverObserver(),
            // Watch shows every fact, signal included: sample it at the rule files' default interval.
            WiFiObserver(
                signalSampling: SignalSampling(interval: WiFiSettings().signalInterval), logger: diagnostics),
        ]
        await withTaskGroup(of: Void.self) { group in
            for observer in observers {
                group.addTask {
                    do {
                        try await observer.run(reporting: continuation)
                    } catch {
                        diagnostics("watch: the \(observer.name) observer failed: \(error)")
                    }
                }
            }
        }
    }
}
