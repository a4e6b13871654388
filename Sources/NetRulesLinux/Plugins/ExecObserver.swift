@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// An external observer plugin: a program that prints one JSON object of facts per line.
///
/// Its facts merge into the store as partial updates. When it exits, every fact it reported
/// becomes unknown and it is restarted after a delay that doubles up to `maximumDelay` (and
/// starts over once a run lasted `stableAfter`). A malformed line is logged with the plugin's
/// name and skipped. Cancelling the task sends SIGTERM to the plugin's process group, then SIGKILL.
/// The protocol is documented in docs/plugins.md.
package struct ExecObserver: Observer {
    /// The plugin's name, from the `observers:` entry or its `netrules-observer-NAME` file name.
    package var name: String { definition.name }
    /// The program and its arguments.
    package let definition: ObserverDefinition
    /// The first restart delay.
    package var initialDelay: Duration = .seconds(1)
    /// The longest restart delay.
    package var maximumDelay: Duration = .seconds(60)
    /// A run at least this long resets the delay.
    package var stableAfter: Duration = .seconds(30)
    let logger: Logger

    /// Creates the observer for a plugin definition.
    /// - Parameters:
    ///   - definition: name and argv (no shell).
    ///   - logger: the parent logger; the plugin logs as `netrules.plugins.NAME`, an exit and
    ///     a skipped line (prefixed with the plugin's name) as warnings, a plugin that cannot be
    ///     started as an error.
    package init(definition: ObserverDefinition, logger: Logger) {
        self.definition = definition
        self.logger = logger.child("netrules.plugins." + definition.name)
    }

    /// Runs the plugin, restarting it, until cancelled.
    package func run(reporting updates: FactReporter) async throws {
        var delay = initialDelay
        let clock = ContinuousClock()
        while !Task.isCancelled {
            let started = clock.now
            let outcome: PluginRun.Outcome
            do {
                outcome = try await PluginRun.run(definition: definition, updates: updates, logger: logger)
            } catch {
                outcome = PluginRun.Outcome(exitStatus: nil, reportedKeys: [], failure: "\(error)")
            }
            let cancelled = Task.isCancelled
            if !cancelled {
                // Say why before the facts go unknown, so whoever sees the facts change can read why.
                if clock.now - started >= stableAfter { delay = initialDelay }
                let why =
                    outcome.failure.map { "could not run: \($0)" } ?? "exited with status \(outcome.exitStatus ?? -1)"
                // A plugin that cannot be started is a setup error; one that exits is restarted.
                logger.log(
                    outcome.failure == nil ? .warning : .error,
                    "observer plugin '\(name)' \(why); its facts are unknown; restarting in \(delay.seconds)s")
            }
            if !outcome.reportedKeys.isEmpty {
                updates.yield(FactUpdate(Dictionary(uniqueKeysWithValues: outcome.reportedKeys.map { ($0, .unknown) })))
            }
            if cancelled { return }
            // QuietClock: a libdispatch timer would keep waking the daemon during the back-off.
            try? await QuietClock().sleep(for: delay)
            delay = min(delay * 2, maximumDelay)
        }
    }
}

extension Duration {
    /// Whole and fractional seconds, for log lines.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
