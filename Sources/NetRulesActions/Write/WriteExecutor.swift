@preconcurrency import Glibc
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
        // fsync can take a while on a busy disk, and a path on a hung network mount forever: a
        // thread of its own, not one of `BlockingPool`'s two (a hung write would hold it for good),
        // and a bounded wait.
        let finished: Result<Void, SystemCallError>? = await DedicatedThread.run(within: action.timeout) {
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
        switch finished {
        case nil:
            let limit = DurationSyntax.format(action.timeout)
            result.outcome = .failed(
                ActionError(.timedOut, "writing '\(action.path)' took longer than \(limit); the write was abandoned"))
        case .success?:
            result.outcome = .succeeded
        case .failure(let error)?:
            result.outcome = .failed(
                ActionError(.ioFailed, "cannot write '\(action.path)'\(Self.explanation(error))", cause: error))
        }
        return result
    }

    /// A plain sentence for the refusals `AtomicFile` makes on purpose.
    static func explanation(_ error: SystemCallError) -> String {
        switch (error.call, error.errno.rawValue) {
        case ("open", ELOOP), ("lstat", ELOOP), ("fstat", ELOOP):
            ": it is a symbolic link, and netrules writes only regular files (write to the link's target instead)"
        case ("lstat", EINVAL), ("fstat", EINVAL):
            ": it is not a regular file (a device, FIFO or socket), and netrules writes only regular files"
        case ("open", ENXIO):
            ": it is a FIFO or device with no reader, and netrules writes only regular files"
        default:
            ""
        }
    }
}
