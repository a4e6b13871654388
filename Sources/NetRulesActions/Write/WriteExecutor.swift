import NetRulesCore
import NetRulesSystem

/// Runs `write:` actions: atomic replace, or one-write append.
struct WriteExecutor: Sendable {
    func execute(_ action: WriteAction, in context: ActionContext, result: ActionResult) async -> ActionResult {
        var result = result
        result.attempts = 1
        if let problem = PathExpansion.validateWritePath(action.path) {
            result.outcome = .failed(ActionError(.invalidPath, "cannot write '\(action.path)': \(problem)"))
            return result
        }
        let path = PathExpansion.expandingTilde(action.path)
        // Values go in raw: a file is data, and the SSID's bytes are what the user asked for.
        let contents = context.render(action.content)
        let start = ContinuousClock.now
        // fsync can take a while on a busy disk; keep it off the cooperative pool.
        let outcome: Result<Void, SystemCallError> = await DedicatedThread.run {
            do throws(SystemCallError) {
                if action.append {
                    try AtomicFile.append(path, record: contents, mode: action.mode)
                } else {
                    try AtomicFile.replace(path, with: contents, mode: action.mode)
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        result.duration = ContinuousClock.now - start
        switch outcome {
        case .success: result.outcome = .succeeded
        case .failure(let error):
            result.outcome = .failed(ActionError(.ioFailed, "cannot write '\(action.path)'", cause: error))
        }
        return result
    }
}
