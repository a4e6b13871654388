import NetRulesCore
import NetRulesSystem

/// The built-in Linux observers (netlink, dns, wifi), run without a daemon: what `watch` shows
/// when no daemon answers.
package enum SystemObservers {
    /// Runs the observers until the task is cancelled, each one's updates into `continuation`.
    /// - Parameters:
    ///   - continuation: receives every update; the caller chooses its buffering.
    ///   - loop: the event loop the observers wait on.
    ///   - logger: receives observer notices and failures.
    package static func run(reporting continuation: FactReporter, on loop: ThreadExecutor, logger: Logger) async {
        let observers: [any Observer] = [
            LinuxNetworkObserver(loop: loop, logger: logger),
            ResolverObserver(loop: loop),
            // Watch shows every fact, signal included: sample it at the rule files' default interval.
            WiFiObserver(
                loop: loop, signalSampling: SignalSampling(interval: WiFiSettings().signalInterval), logger: logger),
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
