@preconcurrency import Glibc

/// A group a file can be given to (`write:`'s `owner: user:group`).
///
/// Looked up with getgrnam_r(3)/getgrgid_r(3), which may ask NSS: blocking work, never the
/// daemon's loop (as `UserAccount`).
package struct UserGroup: Hashable, Sendable {
    package var name: String
    package var gid: gid_t

    package init(name: String, gid: gid_t) {
        self.name = name
        self.gid = gid
    }

    /// The group called `name`, or nil when there is none.
    /// - Throws: `SystemCallError` when the group database cannot be read.
    package static func named(_ name: String) throws(SystemCallError) -> UserGroup? {
        guard !name.isEmpty, !name.contains("\0") else { return nil }
        return try sys_getgr(name: name).get(call: "getgrnam_r").map { UserGroup(name: name, gid: $0.gid) }
    }

    /// The group with `gid`, named by the group database, or by its number when it has no entry
    /// (a file may well belong to a gid no group names) or the database cannot be read.
    package static func withID(_ gid: gid_t) -> UserGroup {
        guard case .success(let group?) = sys_getgr(gid: gid) else { return UserGroup(name: String(gid), gid: gid) }
        return UserGroup(name: group.name, gid: gid)
    }
}
