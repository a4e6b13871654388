import NetRulesCore

/// Runs `run:` actions: `/bin/sh -c COMMAND`, each substituted value quoted for its context.
struct RunExecutor: Sendable {
    /// The shell; tests never change it, but a minimal system could.
    var shell = "/bin/sh"
    /// SIGTERM to SIGKILL.
    var terminationGrace: Duration = .seconds(2)
    var outputLimit = 16 * 1024

    /// The command line as the shell will see it (see `ShellCommandTemplate`).
    static func commandLine(_ action: RunAction, in context: ActionContext) -> [UInt8] {
        action.command.render(context.templateContext)
    }

    func execute(_ action: RunAction, in context: ActionContext, result: ActionResult) async -> ActionResult {
        // `env:` values are not quoted: they reach the process as data, never as shell text.
        let extra = action.environment.map { (name: $0.name, value: context.render($0.value)) }
        let process = ChildProcess(
            executablePath: shell,
            arguments: [Array("sh".utf8), Array("-c".utf8), Self.commandLine(action, in: context)],
            environment: FiringEnvironment.entries(for: context, extra: extra),
            workingDirectory: action.workingDirectory.map(PathExpansion.expandingTilde),
            standardInput: FiringDocument.render(context),
            timeout: action.timeout, terminationGrace: terminationGrace, outputLimit: outputLimit
        )
        return await ProcessActionReport.run(process, result: result, what: "command")
    }
}

/// Runs a `ChildProcess` for an action and turns its end into an `ActionResult`.
enum ProcessActionReport {
    static func run(_ process: ChildProcess, result: ActionResult, what: String) async -> ActionResult {
        var result = result
        result.attempts = 1
        let outcome: ChildProcessOutcome
        do {
            outcome = try await process.run()
        } catch {
            result.outcome = .failed(ActionError(.spawnFailed, "could not start the \(what)", cause: error))
            return result
        }
        result.duration = outcome.duration
        var output: [String] = []
        if !outcome.standardOutput.bytes.isEmpty { output.append("stdout: " + outcome.standardOutput.logText) }
        if !outcome.standardError.bytes.isEmpty { output.append("stderr: " + outcome.standardError.logText) }
        result.output = output.isEmpty ? nil : output.joined(separator: "\n")
        switch outcome.termination {
        case .exited(let status): result.exitStatus = status
        case .signaled(let signal): result.signal = signal
        }
        if outcome.stopped {
            result.outcome = .failed(
                ActionError(.timedOut, "the \(what) was stopped because netrules is shutting down"))
        } else if outcome.timedOut {
            let limit = DurationSyntax.format(process.timeout)
            result.outcome = .failed(
                ActionError(.timedOut, "the \(what) ran longer than \(limit); its process group was killed"))
        } else if case .exited(let status) = outcome.termination, status != 0 {
            result.outcome = .failed(ActionError(.exitedWithFailure, "the \(what) exited with status \(status)"))
        } else if case .signaled(let signal) = outcome.termination {
            result.outcome = .failed(ActionError(.killedBySignal, "the \(what) was killed by signal \(signal)"))
        } else {
            result.outcome = .succeeded
        }
        return result
    }
}
