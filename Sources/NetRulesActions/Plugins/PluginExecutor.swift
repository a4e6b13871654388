import NetRulesCore
import NetRulesSystem

/// Runs external action plugins: `netrules-action-NAME`, the firing as JSON on stdin.
struct PluginExecutor: Sendable {
    /// Searched when the rule set did not resolve the executable at load time.
    var directories: [String]
    var terminationGrace: Duration = .seconds(2)
    var outputLimit = 16 * 1024

    func execute(_ action: PluginAction, in context: ActionContext, result: ActionResult) async -> ActionResult {
        var result = result
        let executable =
            action.executablePath
            ?? ActionCatalog.findPlugin(named: action.name, directories: directories, path: context.environment["PATH"])
        guard let executable else {
            let name = ActionCatalog.executableName(for: action.name)
            result.outcome = .failed(
                ActionError(.pluginNotFound, "no executable '\(name)' in the plugin directories or PATH"))
            return result
        }
        let account = await ActionAccount.resolve(action.user)
        if let unstarted = account.unstarted(result) { return unstarted }
        var process = ChildProcess(
            executablePath: executable, arguments: [Array(executable.utf8)],
            environment: account.environment(
                FiringEnvironment.entries(
                    for: context, extra: [(name: "NETRULES_ACTION", value: Array(action.name.utf8))])),
            workingDirectory: nil, standardInput: FiringDocument.render(context, options: action.options),
            timeout: action.timeout, terminationGrace: terminationGrace, outputLimit: outputLimit
        )
        process.user = account.credentials
        return await ProcessActionReport.run(
            process, result: result, what: "plugin '\(action.name)'", secrets: context.secrets)
    }
}
