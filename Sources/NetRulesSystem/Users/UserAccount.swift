@preconcurrency import Glibc

/// An account a child process can run as: the credentials `initgroups(3)` would give it, and the
/// variables a login would set (`HOME`, `USER`, `LOGNAME`, `SHELL`, and the session's when the
/// user has a runtime directory).
///
/// Looked up with getpwnam_r(3)/getpwuid_r(3) and getgrouplist(3), which may ask NSS (files,
/// LDAP, systemd-userdb): blocking work for the action's own thread, never the daemon's loop.
package struct UserAccount: Hashable, Sendable {
    package var name: String
    package var uid: uid_t
    package var gid: gid_t
    /// The supplementary groups, the primary group among them (getgrouplist(3)).
    package var groups: [gid_t]
    package var home: String
    /// The login shell (`pw_shell`); `/bin/sh` when the entry leaves it empty, as login(1) does.
    package var shell: String

    package init(name: String, uid: uid_t, gid: gid_t, groups: [gid_t], home: String, shell: String = "/bin/sh") {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.home = home
        self.shell = shell.isEmpty ? "/bin/sh" : shell
    }

    /// The account called `name`, or nil when there is none.
    /// - Throws: `SystemCallError` when the user database cannot be read.
    package static func named(_ name: String) throws(SystemCallError) -> UserAccount? {
        guard !name.isEmpty, !name.contains("\0") else { return nil }
        return try account(sys_getpw(name: name).get(call: "getpwnam_r"))
    }

    /// The account with `uid`, or nil when there is none.
    /// - Throws: `SystemCallError` when the user database cannot be read.
    package static func withID(_ uid: uid_t) throws(SystemCallError) -> UserAccount? {
        try account(sys_getpw(uid: uid).get(call: "getpwuid_r"))
    }

    private static func account(
        _ entry: (name: String, uid: uid_t, gid: gid_t, home: String, shell: String)?
    ) -> UserAccount? {
        guard let entry else { return nil }
        return UserAccount(
            name: entry.name, uid: entry.uid, gid: entry.gid, groups: sys_getgrouplist(entry.name, entry.gid),
            home: entry.home, shell: entry.shell)
    }

    /// The user's runtime directory, `/run/user/UID`, when it exists (a session is open or
    /// lingering is on).
    package var runtimeDirectory: String? {
        let path = "/run/user/\(uid)"
        guard case .success(let info) = sys_stat(path), info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return path
    }

    /// The names `loginVariables` sets, each of them replacing what the environment had.
    package static let loginVariableNames = [
        "DBUS_SESSION_BUS_ADDRESS", "HOME", "LOGNAME", "SHELL", "USER", "XDG_RUNTIME_DIR",
    ]

    /// The variables a login sets for this user, sorted by name: `HOME`, `USER`, `LOGNAME`,
    /// `SHELL`, and, when `/run/user/UID` exists (logind makes it while the user has a session,
    /// or lingers), `XDG_RUNTIME_DIR` and `DBUS_SESSION_BUS_ADDRESS`, so `notify-send` reaches the
    /// user's session bus. Without the directory those two are left out: the daemon's own (root's)
    /// would point the child at a directory it cannot use.
    package var loginVariables: [(name: String, value: String)] {
        var set = [("HOME", home), ("LOGNAME", name), ("SHELL", shell), ("USER", name)]
        if let runtime = runtimeDirectory {
            set += [("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(runtime)/bus"), ("XDG_RUNTIME_DIR", runtime)]
        }
        return set.sorted { $0.0 < $1.0 }.map { (name: $0.0, value: $0.1) }
    }
}
