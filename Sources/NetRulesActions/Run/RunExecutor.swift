@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Runs `run:` actions: a command of plain words directly (see `DirectCommand`), anything else
/// with `/bin/sh -c COMMAND`, each substituted value quoted for its context.
struct RunExecutor: Sendable {
    /// The event loop that watches a running command.
    var loop: ThreadExecutor
    /// The shell; tests never change it, but a minimal system could.
    var shell = "/bin/sh"
    /// SIGTERM to SIGKILL.
    var terminationGrace: Duration = .seconds(2)
    var outputLimit = 16 * 1024
    /// Whether a command of plain words starts without the shell; tests turn it off to run the
    /// same command both ways and compare what it saw.
    var startsSimpleCommandsDirectly = true

    /// How a command starts.
    enum Start: Equatable {
        /// The program itself.
        case direct(DirectCommand)
        /// `/bin/sh -c` with the command line.
        case shell
    }

    /// The command line as the shell will see it (see `ShellCommandTemplate`).
    static func commandLine(_ action: RunAction, in context: ActionContext) -> [UInt8] {
        action.command.render(context.templateContext)
    }

    /// How `action` would start now for `context` (the same decision `execute` makes first).
    func start(
        of action: RunAction, in context: ActionContext, environment: [[UInt8]], workingDirectory: String?
    ) -> Start {
        guard startsSimpleCommandsDirectly, let simple = action.command.simpleCommand,
            let direct = DirectCommand.prepare(
                simple.arguments(context.templateContext), environment: environment,
                workingDirectory: workingDirectory)
        else { return .shell }
        return .direct(direct)
    }

    func execute(_ action: RunAction, in context: ActionContext, result: ActionResult) async -> ActionResult {
        // One job on the spawner's threads, off the daemon's loop: the account's lookup, the
        // environment of every known fact, a direct start's PATH search and `cwd:` checks, and the
        // spawn (it returns once the program exec'd). The spawner's threads never end, so the
        // process's death signal (`diesWithDaemon`) comes only when the daemon dies.
        let (started, account) = await ChildProcess.spawner.run { () -> (Started, String?) in
            switch prepare(action, in: context, result: result) {
            case .unstarted(let unstarted): return (.unstarted(unstarted), nil)
            case .ready(let process, let direct, let account): return (Self.start(process, direct: direct), account)
            }
        }
        var result = result
        result.account = account
        let outcome: Result<ChildProcessOutcome, SystemCallError>
        switch started {
        case .unstarted(let unstarted): return unstarted
        case .failed(let error): outcome = .failure(error)
        case .running(let process, let child, let direct):
            let ended = await process.supervise(child, on: loop)
            outcome = .success(direct ? DirectCommand.reportedAsShell(ended, outputLimit: outputLimit) : ended)
        }
        return ProcessActionReport.report(
            outcome, timeout: action.timeout, result: result, what: "command", secrets: context.secrets)
    }

    /// What `execute` starts: the shell's process and, for a command of plain words, the direct
    /// start; `account` is the name of the one `user:` named.
    private enum Prepared: Sendable {
        case unstarted(ActionResult)
        case ready(ChildProcess, direct: DirectCommand?, account: String?)
    }

    /// What the pool job made of it.
    private enum Started: Sendable {
        case unstarted(ActionResult)
        case failed(SystemCallError)
        /// `direct`: started without the shell, so its end is reported as the shell would have.
        case running(ChildProcess, StartedChild, direct: Bool)
    }

    /// Blocking: the direct start when there is one, else (or when it answers ENOEXEC: a script
    /// without an interpreter line) the shell's.
    private static func start(_ process: ChildProcess, direct: DirectCommand?) -> Started {
        if let direct {
            var directProcess = process
            directProcess.executablePath = direct.executablePath
            directProcess.arguments = direct.arguments
            directProcess.environment = direct.environment
            do throws(SystemCallError) {
                return .running(directProcess, try directProcess.start(), direct: true)
            } catch {
                if !shellTakesOver(.failure(error)) { return .failed(error) }
            }
        }
        do throws(SystemCallError) {
            return .running(process, try process.start(), direct: false)
        } catch {
            return .failed(error)
        }
    }

    /// Blocking: reads the account database and stats PATH entries, the working directory and,
    /// for a command run as root, the program and its directories.
    private func prepare(_ action: RunAction, in context: ActionContext, result: ActionResult) -> Prepared {
        let daemonUID = geteuid()
        let account = action.user.map { ActionAccount.resolveBlocking($0, daemonUID: daemonUID) } ?? .daemon(nil)
        if let unstarted = account.unstarted(result) { return .unstarted(unstarted) }
        // `env:` values are not quoted: they reach the process as data, never as shell text.
        let extra = action.environment.map { (name: $0.name, value: context.render($0.value)) }
        let environment = FiringEnvironment.entries(for: context, extra: extra, as: account)
        var workingDirectory: String?
        if let directory = action.workingDirectory {
            // `~name` is that account's home; one gone since the rules loaded fails the action,
            // rather than leaving `~name` to be read as a directory of the daemon's own.
            guard let expanded = PathExpansion.expandedTilde(directory) else {
                let name = PathExpansion.userName(in: directory) ?? directory
                var failed = result
                failed.outcome = .failed(
                    ActionError(.userUnavailable, "there is no user '\(name)' on this system (cwd: \(directory))"))
                return .unstarted(failed)
            }
            workingDirectory = expanded
        }
        var process = ChildProcess(
            executablePath: shell,
            arguments: [Array("sh".utf8), Array("-c".utf8), Self.commandLine(action, in: context)],
            environment: environment,
            workingDirectory: workingDirectory,
            timeout: action.timeout, terminationGrace: terminationGrace, outputLimit: outputLimit
        )
        process.user = account.credentials
        // A command left running by a daemon that died would go on as root with nothing to time it
        // out, and run again after the restart's firing: it dies with the daemon.
        process.diesWithDaemon = true
        process.makeStandardInput = { FiringDocument.render(context) }
        let direct = start(of: action, in: context, environment: environment, workingDirectory: workingDirectory)
        let command: DirectCommand? = if case .direct(let command) = direct { command } else { nil }
        // As root, a program someone else can change is theirs to run as root: refused, as plugins are.
        if account.runsAsRoot(daemonUID: daemonUID),
            let problem = ProgramTrust.problem(
                of: action.command, executable: command?.executablePath, searchPath: Self.searchPath(in: environment),
                workingDirectory: workingDirectory)
        {
            var refused = result
            refused.outcome = .failed(ActionError(.untrustedProgram, problem))
            return .unstarted(refused)
        }
        return .ready(process, direct: command, account: action.user == nil ? nil : account.name)
    }

    /// The `PATH` of `environment` (its last entry, as the shell takes it), or nil when it has none.
    private static func searchPath(in environment: [[UInt8]]) -> String? {
        environment.last { $0.starts(with: Array("PATH=".utf8)) }.map {
            String(decoding: $0.dropFirst(5), as: UTF8.self)
        }
    }
}

extension RunExecutor {
    /// Whether a direct start's failure is one `/bin/sh -c` would handle rather than report.
    ///
    /// A failed spawn started nothing (glibc reports exec errors from the child before returning),
    /// so trying the shell is safe; it is *right* only for ENOEXEC: a file with the execute bit and
    /// no `#!` line, which dash runs as a script of its own. Every other failure (ENOENT for a
    /// file removed since the lookup or a `#!` interpreter that does not exist, EACCES, a working
    /// directory that is gone, E2BIG, EAGAIN, out of descriptors) is reported with its errno: the
    /// shell would hit the same wall and say less (`sh: 1: NAME: not found`, with the cause lost).
    static func shellTakesOver(_ outcome: Result<ChildProcessOutcome, SystemCallError>) -> Bool {
        guard case .failure(let error) = outcome else { return false }
        return error.errno == Errno(rawValue: ENOEXEC)
    }
}

/// Turns the end of an action's `ChildProcess` into an `ActionResult`.
enum ProcessActionReport {
    /// The result for a process's end, or for its failure to start; `secrets` are masked in its
    /// output (on the raw bytes, before they are escaped for the log).
    static func report(
        _ ended: Result<ChildProcessOutcome, SystemCallError>, timeout: Duration, result: ActionResult, what: String,
        secrets: SecretRedaction
    ) -> ActionResult {
        var result = result
        result.attempts = 1
        let outcome: ChildProcessOutcome
        switch ended {
        case .success(let ended): outcome = ended
        case .failure(let error):
            result.outcome = .failed(ActionError(.spawnFailed, "could not start the \(what)", cause: error))
            return result
        }
        result.duration = outcome.duration
        var output: [String] = []
        if !outcome.standardOutput.bytes.isEmpty {
            output.append("stdout: " + secrets.logText(of: outcome.standardOutput))
        }
        if !outcome.standardError.bytes.isEmpty {
            output.append("stderr: " + secrets.logText(of: outcome.standardError))
        }
        result.output = output.isEmpty ? nil : output.joined(separator: "\n")
        switch outcome.termination {
        case .exited(let status): result.exitStatus = status
        case .signaled(let signal): result.signal = signal
        }
        if outcome.stopped {
            result.outcome = .failed(
                ActionError(.timedOut, "the \(what) was stopped because netrules is shutting down"))
        } else if outcome.timedOut {
            let limit = DurationSyntax.format(timeout)
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
