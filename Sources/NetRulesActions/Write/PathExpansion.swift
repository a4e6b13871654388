@preconcurrency import Glibc
import NetRulesSystem

/// `~` expansion and load-time checks for paths written in rules.
package enum PathExpansion {
    /// Expands a leading `~` or `~/` to `$HOME` (or the password database's home when `HOME` is
    /// unset), and `~name` or `~name/` to the home of the account `name` (as the shell does).
    ///
    /// A `~name` that names no account is returned unchanged. `validateWritePath` rejects `~name`
    /// (a `write:` path is the daemon's or absolute); `run:`'s `cwd:` takes it. Looking an account
    /// up may block (NSS): call it off the daemon's loop.
    package static func expandingTilde(_ path: String) -> String {
        expandedTilde(path) ?? path
    }

    /// `expandingTilde`, or nil when the path starts with `~name` and there is no such account
    /// (or the user database cannot be read).
    package static func expandedTilde(_ path: String) -> String? {
        guard path.hasPrefix("~") else { return path }
        if path == "~" || path.hasPrefix("~/") { return homeDirectory() + path.dropFirst() }
        guard let name = userName(in: path), let account = try? UserAccount.named(name) else { return nil }
        return account.home + path.dropFirst(1 + name.count)
    }

    /// `name` of a path starting with `~name` (up to the first `/`), or nil for `~` and `~/…`.
    package static func userName(in path: String) -> String? {
        guard path.hasPrefix("~") else { return nil }
        let name = path.dropFirst().prefix { $0 != "/" }
        return name.isEmpty ? nil : String(name)
    }

    /// Checks a `write:` path when rules load; returns the problem, or nil when the path is fine.
    ///
    /// A path must be absolute after `~` expansion, name a file rather than a directory, and
    /// contain no NUL byte and no `..` component (a rule file should say plainly where it writes).
    /// It does not need to exist: missing parent directories are created when the action runs.
    /// - Parameter path: The path as written in the rule.
    /// - Returns: A message for a diagnostic, or nil.
    package static func validateWritePath(_ path: String) -> String? {
        if path.isEmpty { return "the path is empty" }
        if path.utf8.contains(0) { return "the path contains a NUL byte" }
        if path.hasPrefix("~") && !(path == "~" || path.hasPrefix("~/")) {
            return "'~user' paths are not supported; write the home directory out or use '~/'"
        }
        let expanded = expandingTilde(path)
        guard expanded.hasPrefix("/") else { return "the path must be absolute (or start with '~/')" }
        if expanded.hasSuffix("/") || path == "~" { return "the path names a directory, not a file" }
        if expanded.split(separator: "/").contains("..") { return "the path must not contain '..'" }
        for tree in ["/dev", "/proc", "/sys"] where expanded == tree || expanded.hasPrefix(tree + "/") {
            return "netrules does not write under \(tree)"
        }
        if case .success(let info) = sys_stat(expanded), info.st_mode & S_IFMT == S_IFDIR {
            return "the path is a directory"
        }
        return nil
    }

    static func homeDirectory() -> String {
        if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
        // No entry, or a database that cannot be read: `/`, as for an account without a home.
        guard case .success(let account?) = sys_getpw(uid: sys_getuid()) else { return "/" }
        return account.home
    }
}
