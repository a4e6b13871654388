import NetRulesCore

/// The built-in Linux observers (netlink, dns, wifi), run without a daemon: what `watch` shows
/// when no daemon answers.
package enum SystemObservers {
    /// Runs the observers until the task is cancelled, each one's updates into `continuation`.
    /// - Parameters:
    ///   - continuation: receives every update; the caller chooses its buffering.
    ///   - logger: receives observer notices and failures.
    package static func run(reporting continuation: FactReporter, logger: Logger) async {
        let observers: [any Observer] = [
            LinuxNetworkObserver(logger: logger),
            ResolverObserver(),
            // Watch shows every fact, signal included: sample it at the rule files' default interval.
            WiFiObserver(
                signalSampling: SignalSampling(interval: WiFiSettings().signalInterval), logger: logger),
        ]
        await withTaskGroup(of: Void.self) { group in
            for observer in observers {
                group.addTask {
                    do {
                        try await observer.run(reporting: continuation)
                    } catch {
                        logger.error("watch: the \(observer.name) observer failed: \(error)")
                    }
                }
            }
        }
    }
}
