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
    /// The longest line read; the rest of a longer one is skipped up to its newline (docs/plugins.md),
    /// so a plugin that never prints a newline cannot make the daemon hold its output.
    static let maximumLineBytes = 64 * 1024

    /// Runs the plugin once, reading its lines in this task as they arrive (in the daemon: on its
    /// loop, with no thread of its own); cancelling the task stops the plugin.
    static func run(
        definition: ObserverDefinition, on loop: ThreadExecutor, updates: FactReporter, logger: Logger
    ) async -> Outcome {
        await readLines(definition: definition, on: loop, updates: updates, logger: logger)
    }

    /// The plugin as a child process: its environment and working directory are ours, its stderr
    /// goes to ours, and it runs until it exits or is stopped, or the daemon dies, even by SIGKILL
    /// (`diesWithDaemon`: a restarted daemon never finds the old copy still running), and its
    /// group is in the state directory's record until it is reaped (`PluginGroups`).
    static func process(for definition: ObserverDefinition) -> ChildProcess {
        precondition(!definition.command.isEmpty, "a command needs a program")
        let name = definition.command[0]
        var process = ChildProcess(
            executablePath: name.contains("/")
                ? name
                : (ExecutableSearch.find(name, along: ExecutableSearch.processSearchPath, entries: .absoluteOnly)
                    ?? name),
            arguments: definition.command.map { Array($0.utf8) }, environment: ChildProcess.inheritedEnvironment,
            timeout: nil, terminationGrace: terminationGrace, standardErrorPassesThrough: true)
        process.diesWithDaemon = true
        process.lifetime = PluginGroups.shared
        return process
    }

    private static func readLines(
        definition: ObserverDefinition, on loop: ThreadExecutor, updates: FactReporter, logger: Logger
    ) async -> Outcome {
        var pending: [UInt8] = []
        var skippingLongLine = false
        var warnedLongLine = false
        let provides = Set(definition.provides)
        // Each key is spoken of once a run, so a plugin repeating it cannot flood the log.
        var refused: Set<FactKey> = []
        var undeclared: Set<FactKey> = []
        func refuse(_ key: FactKey, _ why: String) {
            guard refused.insert(key).inserted else { return }
            logger.warning("observer plugin '\(definition.name)': dropped '\(key)': \(why)")
        }
        // The updates of the lines of one read, reported together once it is handled.
        var read: [FactUpdate] = []
        func handle(_ line: ArraySlice<UInt8>) {
            guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) else { return }
            switch PluginLine.parse(bytes: Array(line)) {
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
                if !update.isEmpty { read.append(update) }
            case .failure(let malformed):
                logger.warning(
                    "observer plugin '\(definition.name)': skipped a malformed line (\(malformed)): \(TerminalText.escaped(bytes: Array(line.prefix(200))))"
                )
            }
        }
        // Called by this task, while the plugin runs.
        let ended: Result<ChildProcessOutcome, SystemCallError>
        do throws(SystemCallError) {
            ended = .success(
                try await process(for: definition).run(on: loop) { chunk in
                    pending += chunk
                    // The chunk's lines, then one removal of what they used: removing each line
                    // as it is handled moved the rest of a 16 KiB chunk once per line.
                    var start = pending.startIndex
                    while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                        if skippingLongLine {
                            skippingLongLine = false
                        } else {
                            handle(pending[start..<newline])
                        }
                        start = newline + 1
                    }
                    pending.removeSubrange(..<start)
                    updates.yield(contentsOf: read)
                    read.removeAll(keepingCapacity: true)
                    if pending.count > maximumLineBytes {
                        if !skippingLongLine, !warnedLongLine {
                            warnedLongLine = true
                            logger.warning(
                                "observer plugin '\(definition.name)': skipped a line longer than \(maximumLineBytes / 1024) KiB (said once a run)"
                            )
                        }
                        skippingLongLine = true
                        pending.removeAll(keepingCapacity: true)
                    }
                })
        } catch {
            ended = .failure(error)
        }
        let outcome: ChildProcessOutcome
        switch ended {
        case .success(let ended): outcome = ended
        case .failure(let error): return Outcome(exitStatus: nil, failure: "\(error)")
        }
        if outcome.stopped { return Outcome(exitStatus: nil) }
        if !pending.isEmpty, !skippingLongLine { handle(pending[...]) }
        return Outcome(exitStatus: outcome.shellStatus)
    }
}
