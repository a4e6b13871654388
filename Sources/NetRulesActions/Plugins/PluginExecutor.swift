@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Runs external action plugins: `netrules-action-NAME`, the firing as JSON on stdin.
struct PluginExecutor: Sendable {
    /// The event loop that watches a running plugin.
    var loop: ThreadExecutor
    /// Searched when the rule set did not resolve the executable at load time.
    var directories: [String]
    var terminationGrace: Duration = .seconds(2)
    var outputLimit = 16 * 1024

    func execute(_ action: PluginAction, in context: ActionContext, result: ActionResult) async -> ActionResult {
        // One job on the spawner's threads, off the daemon's loop: the plugin's search, the
        // account's lookup, the environment and input document of every known fact, and the spawn.
        // Those threads never end, so the plugin's death signal comes only when the daemon dies.
        let started = await ChildProcess.spawner.run {
            () -> Result<(ChildProcess, Result<StartedChild, SystemCallError>), Unstarted> in
            prepare(action, in: context, result: result).map { process in
                do throws(SystemCallError) {
                    return (process, .success(try process.start()))
                } catch {
                    return (process, .failure(error))
                }
            }
        }
        let outcome: Result<ChildProcessOutcome, SystemCallError>
        var result = result
        // The account `user:` named, as the process got it (`prepare` set its credentials).
        if action.user != nil, case .success((let process, _)) = started { result.account = process.user?.name }
        switch started {
        case .failure(let unstarted): return unstarted.result
        case .success((_, .failure(let error))): outcome = .failure(error)
        case .success((let process, .success(let child))): outcome = .success(await process.supervise(child, on: loop))
        }
        return ProcessActionReport.report(
            outcome, timeout: action.timeout, result: result, what: "plugin '\(action.name)'", secrets: context.secrets)
    }

    /// An action that does not start, with its result.
    private struct Unstarted: Error {
        var result: ActionResult
    }

    /// Blocking: searches the plugin directories and reads the account database.
    private func prepare(
        _ action: PluginAction, in context: ActionContext, result: ActionResult
    ) -> Result<ChildProcess, Unstarted> {
        var result = result
        let executable =
            action.executablePath
            ?? ActionCatalog.findPlugin(named: action.name, directories: directories, path: context.environment["PATH"])
        guard let executable else {
            let name = ActionCatalog.executableName(for: action.name)
            result.outcome = .failed(
                ActionError(.pluginNotFound, "no executable '\(name)' in the plugin directories or PATH"))
            return .failure(Unstarted(result: result))
        }
        let daemonUID = geteuid()
        let account = action.user.map { ActionAccount.resolveBlocking($0, daemonUID: daemonUID) } ?? .daemon(nil)
        if let unstarted = account.unstarted(result) { return .failure(Unstarted(result: unstarted)) }
        // Checked when the rules loaded too; again here, since the file may have changed since (or
        // been found only now). A plugin run as another user is that user's business.
        if account.runsAsRoot(daemonUID: daemonUID),
            let problem = FileTrust.problem(withFile: executable, runningAsRoot: true, kind: .plugin)
        {
            result.outcome = .failed(ActionError(.untrustedProgram, problem))
            return .failure(Unstarted(result: result))
        }
        var process = ChildProcess(
            executablePath: executable, arguments: [Array(executable.utf8)],
            environment: FiringEnvironment.entries(
                for: context, extra: [(name: "NETRULES_ACTION", value: Array(action.name.utf8))], as: account),
            workingDirectory: nil, standardInput: FiringDocument.render(context, options: action.options),
            timeout: action.timeout, terminationGrace: terminationGrace, outputLimit: outputLimit
        )
        process.user = account.credentials
        process.diesWithDaemon = true
        return .success(process)
    }
}
