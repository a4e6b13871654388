@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Whom a `run:` or plugin action with `user:` runs as, or whom a `write:` with `owner:` gives its
/// file to, decided when it starts.
enum ActionAccount: Sendable {
    /// As the daemon (no `user:`, or `user:` naming the daemon's own account in per-user mode).
    case daemon(UserAccount?)
    /// As this account: the child gets its credentials and login environment.
    case account(UserAccount)
    /// Not at all: `user: active` and no active local graphical session.
    case skipped(String)
    /// Not at all, and that is a failure (the account is gone, or a per-user daemon was asked
    /// to run as someone else).
    case failed(ActionError)

    /// The rule key that named the account, for the messages: `user:` or `owner:`.
    enum Key: String, Sendable {
        case user, owner
    }

    /// Looks `user` up (NSS and sd-login may block: callers run it off the daemon's loop), as
    /// seen by a daemon running with effective uid `daemonUID`.
    /// - Parameter key: the key that named it (`owner:` of a `write:`), which the messages quote.
    static func resolveBlocking(_ user: ActionUser, daemonUID: uid_t, key: Key = .user) -> ActionAccount {
        let account: UserAccount?
        do {
            switch user {
            case .named(let name):
                account = try UserAccount.named(name)
                guard account != nil else {
                    return .failed(
                        ActionError(.userUnavailable, "there is no user '\(name)' on this system (\(key): \(name))"))
                }
            case .activeSession:
                let sessions: [LoginSession]
                do {
                    sessions = try LoginSession.current()
                } catch {
                    return .skipped("no active graphical session can be found (\(key): active): \(error)")
                }
                guard let uid = LoginSession.activeGraphicalUser(in: sessions) else {
                    return .skipped("no active local graphical session (\(key): active)")
                }
                account = try UserAccount.withID(uid)
                guard account != nil else {
                    return .failed(
                        ActionError(.userUnavailable, "the active session's uid \(uid) has no account (\(key): active)")
                    )
                }
            }
        } catch {
            return .failed(ActionError(.userUnavailable, "the user '\(user)' cannot be looked up", cause: error))
        }
        guard let account else { return .daemon(nil) }
        return decide(account, daemonUID: daemonUID, asked: user, key: key)
    }

    /// Root runs as anyone; a per-user daemon only as itself (it could not change its
    /// credentials, and must not pretend to). Decided here, when the action starts, and not when
    /// the rules load: `check` may read the system's rules as an ordinary user, and whether a
    /// `user: active` session is the daemon's own is known only now.
    static func decide(_ account: UserAccount, daemonUID: uid_t, asked: ActionUser, key: Key = .user) -> ActionAccount {
        if daemonUID == 0 { return .account(account) }
        if account.uid == daemonUID { return .daemon(account) }
        let what = key == .owner ? "give a file to" : "run an action as"
        return .failed(
            ActionError(
                .userUnavailable,
                "netrules runs as uid \(daemonUID), not as root, so it cannot \(what) '\(account.name)' "
                    + "(\(key): \(asked))"))
    }

    /// The account whose credentials the child gets; nil to keep the daemon's.
    var credentials: UserAccount? {
        if case .account(let account) = self { account } else { nil }
    }

    /// The account whose login variables the child gets (see `FiringEnvironment`), if any.
    var login: UserAccount? {
        switch self {
        case .account(let account), .daemon(let account?): account
        case .daemon(nil), .skipped, .failed: nil
        }
    }

    /// The account's name, for the history and the log (`ActionResult.account`); nil without one.
    var name: String? { login?.name }

    /// Whether the child starts from a clean environment rather than the daemon's: it runs as
    /// another user than root, who must not get root's secrets (see `FiringEnvironment`). A
    /// per-user daemon's own user (`.daemon`) already has them.
    var startsClean: Bool {
        if case .account(let account) = self { account.uid != 0 } else { false }
    }

    /// Whether the child runs as root (the daemon is root and `user:` is absent or names root):
    /// only then must its program be one no one else can change (`FileTrust`).
    func runsAsRoot(daemonUID: uid_t) -> Bool {
        switch self {
        case .daemon: daemonUID == 0
        case .account(let account): account.uid == 0
        case .skipped, .failed: false
        }
    }

    /// `result` for an action that does not start: skipped or failed; nil when it starts.
    func unstarted(_ result: ActionResult) -> ActionResult? {
        var result = result
        switch self {
        case .skipped(let reason): result.outcome = .skipped(reason: reason)
        case .failed(let error): result.outcome = .failed(error)
        case .daemon, .account: return nil
        }
        return result
    }
}
