@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Runs `write:` actions: atomic replace, or one-write append, as the daemon's file or, with
/// `owner:`, one given to that account (see `AtomicFile.replace(_:with:mode:owner:)`).
struct WriteExecutor: Sendable {
    /// The event loop whose timer bounds the write.
    var loop: ThreadExecutor

    func execute(_ action: WriteAction, in context: ActionContext, result: ActionResult) async -> ActionResult {
        var result = result
        result.attempts = 1
        // Values go in raw: a file is data, and the SSID's bytes are what the user asked for.
        let contents = context.render(action.content)
        let start = ContinuousClock.now
        // fsync can take a while on a busy disk, and a path on a hung network mount forever: a
        // thread of its own, not one of `BlockingPool`'s two (a hung write would hold it for good),
        // and a bounded wait. The path's check and `~` (the account database without HOME) and
        // the owner's lookup (NSS, sd-login) may block too: the same thread, never the loop.
        let finished: Finished? = await DedicatedThread.run(within: action.timeout, on: loop) {
            if let problem = PathExpansion.validateWritePath(action.path) {
                return .unstarted(.failed(ActionError(.invalidPath, "cannot write '\(action.path)': \(problem)")))
            }
            return Self.write(action, to: PathExpansion.expandingTilde(action.path), contents: contents)
        }
        result.duration = ContinuousClock.now - start
        switch finished {
        case nil:
            let limit = DurationSyntax.format(action.timeout)
            result.outcome = .failed(
                ActionError(.timedOut, "writing '\(action.path)' took longer than \(limit); the write was abandoned"))
        case .unstarted(let outcome)?:
            result.outcome = outcome
        case .written(let owner)?:
            (result.account, result.group) = (owner?.account.name, owner?.group.name)
            result.outcome = .succeeded
        case .failed(let error, let owner)?:
            (result.account, result.group) = (owner?.account.name, owner?.group.name)
            result.outcome = .failed(
                ActionError(.ioFailed, "cannot write '\(action.path)'\(Self.explanation(error))", cause: error))
        }
        return result
    }

    /// Whom `owner:` named, looked up when the action runs.
    struct Owner: Sendable {
        var account: UserAccount
        var group: UserGroup
    }

    /// What the write's thread made of it.
    enum Finished: Sendable {
        case written(Owner?)
        case failed(SystemCallError, Owner?)
        /// Not written: `owner: active` with no graphical session, or an owner there is no longer.
        case unstarted(ActionResult.Outcome)
    }

    /// Blocking: looks the owner up, then writes.
    static func write(_ action: WriteAction, to path: String, contents: [UInt8]) -> Finished {
        var owner: Owner?
        if let wanted = action.owner {
            switch resolve(wanted) {
            case .success(let resolved): owner = resolved
            case .failure(let unstarted): return .unstarted(unstarted.outcome)
            }
        }
        do throws(SystemCallError) {
            if let owner {
                let ownership = AtomicFile.Ownership(uid: owner.account.uid, gid: owner.group.gid)
                if action.append {
                    try AtomicFile.append(path, record: contents, mode: action.mode, owner: ownership)
                } else {
                    try AtomicFile.replace(path, with: contents, mode: action.mode, owner: ownership)
                }
            } else if action.append {
                try AtomicFile.append(path, record: contents, mode: action.mode)
            } else {
                try AtomicFile.replace(path, with: contents, mode: action.mode)
            }
            return .written(owner)
        } catch {
            return .failed(error, owner)
        }
    }

    /// An owner that cannot be had, as the action's outcome.
    struct Unresolved: Error {
        var outcome: ActionResult.Outcome
    }

    /// Blocking: the account as `run:`'s `user:` finds it (`ActionAccount`), and the group named,
    /// else the account's primary one.
    static func resolve(_ owner: FileOwner) -> Result<Owner, Unresolved> {
        let daemonUID = geteuid()
        let account: UserAccount
        switch ActionAccount.resolveBlocking(owner.user, daemonUID: daemonUID, key: .owner) {
        case .account(let found), .daemon(let found?):
            account = found
        case .daemon(nil):
            // `resolveBlocking` finds an account or says why not; this is the daemon's own.
            guard let own = try? UserAccount.withID(daemonUID) else {
                return .failure(
                    Unresolved(
                        outcome: .failed(
                            ActionError(.userUnavailable, "uid \(daemonUID) has no account (owner: \(owner))"))))
            }
            account = own
        case .skipped(let reason):
            return .failure(Unresolved(outcome: .skipped(reason: reason)))
        case .failed(let error):
            return .failure(Unresolved(outcome: .failed(error)))
        }
        guard let name = owner.group else { return .success(Owner(account: account, group: .withID(account.gid))) }
        do {
            guard let group = try UserGroup.named(name) else {
                return .failure(
                    Unresolved(
                        outcome: .failed(
                            ActionError(
                                .userUnavailable, "there is no group '\(name)' on this system (owner: \(owner))"))))
            }
            return .success(Owner(account: account, group: group))
        } catch {
            return .failure(
                Unresolved(
                    outcome: .failed(
                        ActionError(.userUnavailable, "the group '\(name)' cannot be looked up", cause: error))))
        }
    }

    /// A plain sentence for the refusals `AtomicFile` makes on purpose.
    static func explanation(_ error: SystemCallError) -> String {
        switch (error.call, error.errno.rawValue) {
        case ("open", ELOOP), ("lstat", ELOOP), ("fstat", ELOOP), ("fstatat", ELOOP):
            ": it is a symbolic link, and netrules writes only regular files (write to the link's target instead)"
        case ("lstat", EINVAL), ("fstat", EINVAL), ("fstatat", EINVAL):
            ": it is not a regular file (a device, FIFO or socket), and netrules writes only regular files"
        case ("open", ENXIO), ("openat", ENXIO):
            ": it is a FIFO or device with no reader, and netrules writes only regular files"
        case ("openat", ELOOP):
            ": a directory on its path is a symbolic link someone other than root could have put there (it is in "
                + "a directory they can change), and netrules follows none of those when it gives a file to an owner"
        case ("fstat", EMLINK):
            ": the file has another name (a hard link), and netrules gives an owner only a file with one name"
        case ("fchown", EPERM):
            ": netrules may not give it to that owner (a daemon that is not root can give a file only to its own "
                + "groups)"
        default:
            ""
        }
    }
}
