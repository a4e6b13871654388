@preconcurrency import Glibc

/// An account a child process can run as: the credentials `initgroups(3)` would give it, and the
/// environment a login would set (`HOME`, `USER`, `LOGNAME`, and the session bus when the user has
/// a runtime directory).
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

    package init(name: String, uid: uid_t, gid: gid_t, groups: [gid_t], home: String) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.home = home
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

    private static func account(_ entry: (name: String, uid: uid_t, gid: gid_t, home: String)?) -> UserAccount? {
        guard let entry else { return nil }
        return UserAccount(
            name: entry.name, uid: entry.uid, gid: entry.gid, groups: sys_getgrouplist(entry.name, entry.gid),
            home: entry.home)
    }

    /// The user's runtime directory, `/run/user/UID`, when it exists (a session is open or
    /// lingering is on).
    package var runtimeDirectory: String? {
        let path = "/run/user/\(uid)"
        guard case .success(let info) = sys_stat(path), info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return path
    }

    /// `environment` with the login variables set for this user: `HOME`, `USER`, `LOGNAME`, and,
    /// when `/run/user/UID` exists, `XDG_RUNTIME_DIR` and `DBUS_SESSION_BUS_ADDRESS` (so
    /// `notify-send` reaches the user's session bus). Entries for those names are replaced; the
    /// rest keep their order.
    package func loginEnvironment(_ environment: [[UInt8]]) -> [[UInt8]] {
        var set: [(String, String)] = [("HOME", home), ("USER", name), ("LOGNAME", name)]
        if let runtime = runtimeDirectory {
            set += [("XDG_RUNTIME_DIR", runtime), ("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(runtime)/bus")]
        } else {
            // The daemon's own (root's) would point the child at a directory it cannot use.
            set += [("XDG_RUNTIME_DIR", ""), ("DBUS_SESSION_BUS_ADDRESS", "")]
        }
        let replaced = Set(set.map { Array(($0.0 + "=").utf8) })
        let kept = environment.filter { entry in
            !replaced.contains { entry.starts(with: $0) }
        }
        return kept + set.filter { !$0.1.isEmpty }.map { Array("\($0.0)=\($0.1)".utf8) }
    }
}
