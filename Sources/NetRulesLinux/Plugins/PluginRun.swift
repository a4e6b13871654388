@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// One run of an observer plugin: spawn, read lines until it exits or we are cancelled.
enum PluginRun {
    struct Outcome: Sendable {
        /// The exit status, nil when it was stopped by cancellation or never started.
        var exitStatus: Int32?
        /// Why it could not start.
        var failure: String?
    }

    /// How long a plugin has between SIGTERM and SIGKILL when it is stopped (docs/plugins.md).
    static let terminationGrace: Duration = .seconds(1)

    /// Runs the plugin once on a dedicated thread.
    static func run(
        definition: ObserverDefinition, updates: FactReporter, logger: Logger
    ) async throws -> Outcome {
        let wake = try WakeEvent()
        defer { wake.close() }
        return try await withTaskCancellationHandler {
            try await DedicatedThread.spawnAndWait(name: "netrules-plugin") {
                readLines(definition: definition, wake: wake, updates: updates, logger: logger)
            }
        } onCancel: {
            wake.signal()
        }
    }

    /// The plugin as a child process: its environment and working directory are ours, its stderr
    /// goes to ours, and it runs until it exits or is stopped.
    static func process(for definition: ObserverDefinition) -> ChildProcess {
        precondition(!definition.command.isEmpty, "a command needs a program")
        let name = definition.command[0]
        return ChildProcess(
            executablePath: name.contains("/") ? name : (ChildProcess.lookUp(name) ?? name),
            arguments: definition.command.map { Array($0.utf8) }, environment: ChildProcess.inheritedEnvironment,
            timeout: nil, terminationGrace: terminationGrace, standardErrorPassesThrough: true)
    }

    private static func readLines(
        definition: ObserverDefinition, wake: WakeEvent, updates: FactReporter, logger: Logger
    ) -> Outcome {
        var pending: [UInt8] = []
        let provides = Set(definition.provides)
        // Each key is spoken of once a run, so a plugin repeating it cannot flood the log.
        var refused: Set<FactKey> = []
        var undeclared: Set<FactKey> = []
        func refuse(_ key: FactKey, _ why: String) {
            guard refused.insert(key).inserted else { return }
            logger.warning("observer plugin '\(definition.name)': dropped '\(key)': \(why)")
        }
        func handle(_ line: ArraySlice<UInt8>) {
            let text = String(decoding: line, as: UTF8.self)
            guard !text.allSatisfy({ $0 == " " || $0 == "\r" }) else { return }
            switch PluginLine.parse(text) {
            case .success(var update):
                for (key, state) in update.changes where key.isBuiltIn {
                    if !provides.contains(key), undeclared.insert(key).inserted {
                        logger.notice(
                            "observer plugin '\(definition.name)' reports the built-in fact '\(key)', which its "
                                + "provides: does not list; list it, so facts and doctor name the plugin")
                    }
                    switch key.checked(state) {
                    case .success(let normalized): update[key] = normalized
                    case .failure(let problem):
                        update[key] = nil
                        refuse(key, problem.message)
                    }
                }
                if !update.isEmpty { updates.yield(update) }
            case .failure(let malformed):
                logger.warning(
                    "observer plugin '\(definition.name)': skipped a malformed line (\(malformed)): \(TerminalText.escaped(bytes: Array(line.prefix(200))))"
                )
            }
        }
        // Called on this thread, while runBlocking runs.
        let ended = process(for: definition).runBlocking(stop: wake) { chunk in
            pending += chunk
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                handle(pending[..<newline])
                pending.removeSubrange(...newline)
            }
        }
        let outcome: ChildProcessOutcome
        switch ended {
        case .success(let ended): outcome = ended
        case .failure(let error): return Outcome(exitStatus: nil, failure: "\(error)")
        }
        if outcome.stopped { return Outcome(exitStatus: nil) }
        if !pending.isEmpty { handle(pending[...]) }
        return Outcome(exitStatus: outcome.shellStatus)
    }
}
