@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// An external observer plugin: a program that prints one JSON object of facts per line.
///
/// Its facts merge into the store as partial updates. A malformed line is logged with the
/// plugin's name and skipped. When the program exits, `run` throws saying how; the daemon's
/// supervision (`ObserverSupervision`) makes every fact it reported unknown and starts it again
/// after a back-off. Cancelling the task sends SIGTERM to the plugin's process group, then
/// SIGKILL. The protocol is documented in docs/plugins.md.
package struct ExecObserver: Observer {
    /// The plugin's name, from the `observers:` entry or its `netrules-observer-NAME` file name.
    package var name: String { definition.name }

    /// The facts its rule file says it `provides:`.
    package var ownedKeys: Set<FactKey> { Set(definition.provides) }
    /// The program and its arguments.
    package let definition: ObserverDefinition
    /// The event loop that reads the plugin's output.
    let loop: ThreadExecutor
    let logger: Logger

    /// How a run of the plugin ended, when it ended on its own.
    package struct Ended: Error, CustomStringConvertible {
        /// `exited with status 3`, `could not run: …`.
        package var description: String
    }

    /// Creates the observer for a plugin definition.
    /// - Parameters:
    ///   - definition: name and argv (no shell).
    ///   - loop: the event loop that reads the plugin's output and waits for its end.
    ///   - logger: the parent logger; the plugin logs as `netrules.plugins.NAME`, a skipped line
    ///     (prefixed with the plugin's name) as a warning.
    package init(definition: ObserverDefinition, loop: ThreadExecutor, logger: Logger) {
        self.definition = definition
        self.loop = loop
        self.logger = logger.child("netrules.plugins." + definition.name)
    }

    /// Runs the plugin once, until it exits (throws ``Ended``) or the task is cancelled (returns).
    package func run(reporting updates: FactReporter) async throws {
        let outcome = await PluginRun.run(definition: definition, on: loop, updates: updates, logger: logger)
        if Task.isCancelled { return }
        if let failure = outcome.failure { throw Ended(description: "could not run: \(failure)") }
        throw Ended(description: "exited with status \(outcome.exitStatus ?? -1)")
    }
}
