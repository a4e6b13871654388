@preconcurrency import Glibc

/// Decides whether a daemon running as root may trust a rule file, a plugin or a program it runs
/// as root.
///
/// Rule files say what to run, and plugins and `run:` programs are what runs, so when the daemon
/// is root anyone who can change one of them gets root. The policy follows NetworkManager's
/// dispatcher and sudo's sudoers checks:
/// - the file itself (after following symlinks) must be a regular file owned by root and not
///   writable by its group or by others;
/// - every directory above it, up to `/`, both on the path as given and on the resolved path,
///   must be owned by root and not writable by group or others, unless it is sticky (like `/tmp`,
///   where others may add files but cannot rename or remove root's: a root-owned file in root's
///   sticky `/tmp` is trusted, one in a sticky directory another user owns is not);
/// - a plugin must not be setuid or setgid (nothing needs it, and it would hand root to whoever runs it).
///
/// A daemon that is not root trusts its user's files: they can already do what the rules do.
package enum FileTrust {
    /// What the file is, for the message and for the plugin-only checks.
    package enum Kind: String, Sendable, CustomStringConvertible {
        /// A YAML rule file.
        case ruleFile = "rule file"
        /// An observer or action plugin executable.
        case plugin = "plugin"
        /// A program or script a `run:` action runs as root. Setuid programs are common here
        /// (`ping`, `mount`) and not refused.
        case program = "program"

        package var description: String { rawValue }
    }

    /// Why the daemon must not use the file at `path`, or nil when it may.
    ///
    /// - Parameters:
    ///   - path: The file, absolute or relative to the working directory.
    ///   - runningAsRoot: Whether the daemon runs as root (the effective uid is 0); only then is anything refused.
    ///   - kind: What the file is; setuid and setgid bits are refused only on plugins.
    /// - Returns: One sentence naming the file, the problem, its mode in octal and owner, and the
    ///   command that fixes it, such as `refusing rule file /etc/netrules/a.yaml: it is writable by
    ///   other users (mode 0666, owner root); run: chmod go-w /etc/netrules/a.yaml`.
    package static func problem(withFile path: String, runningAsRoot: Bool = geteuid() == 0, kind: Kind) -> String? {
        guard runningAsRoot else { return nil }
        let absolute: String
        if path.hasPrefix("/") {
            absolute = path
        } else if case .success(let directory) = sys_getcwd() {
            absolute = directory + "/" + path
        } else {
            absolute = path
        }
        let subject = "refusing \(kind) \(path)"
        let link: Entry
        switch Entry.inspect(absolute, followingSymlink: false) {
        case .success(let entry): link = entry
        case .failure(let errno): return subject + ": it cannot be inspected: \(errno.message)"
        }
        let target: String
        switch sys_realpath(absolute) {
        case .success(let resolved): target = resolved
        case .failure(let errno): return subject + ": its path cannot be resolved: \(errno)"
        }
        // The message names what the user typed; the fix names the file that really has the problem.
        let named = link.isSymlink ? "\(subject) (a symlink to \(target))" : subject
        let fixPath = link.isSymlink ? target : path
        guard case .success(let file) = Entry.inspect(target, followingSymlink: true) else {
            return named + ": it cannot be inspected"
        }
        if let problem = fileProblem(file, kind: kind, fixPath: fixPath) {
            return named + ": " + problem
        }
        for directory in ancestors(of: absolute) + ancestors(of: target) {
            // A symlinked directory's own mode means nothing; its target is on the resolved path.
            guard case .success(let entry) = Entry.inspect(directory, followingSymlink: false), !entry.isSymlink else {
                continue
            }
            if let problem = directoryProblem(entry, path: directory) {
                return named + ": " + problem
            }
        }
        return nil
    }

    private static func fileProblem(_ file: Entry, kind: Kind, fixPath: String) -> String? {
        guard file.isRegularFile else { return "it is not a regular file \(file.details)" }
        var reasons: [String] = []
        var fixes: [String] = []
        if file.uid != 0 {
            reasons.append("it is owned by \(file.ownerName) (uid \(file.uid)), not root")
            fixes.append("chown root \(fixPath)")
        }
        if let writers = file.otherWriters {
            reasons.append("it is writable by \(writers)")
            fixes.append("chmod \(file.writeBitsToRemove) \(fixPath)")
        }
        if kind == .plugin, let bits = file.setIDBits {
            reasons.append("it is \(bits)")
            fixes.append("chmod u-s,g-s \(fixPath)")
        }
        guard !reasons.isEmpty else { return nil }
        return joined(reasons) + " \(file.details); run: " + fixes.joined(separator: " && ")
    }

    private static func directoryProblem(_ directory: Entry, path: String) -> String? {
        var reasons: [String] = []
        var fixes: [String] = []
        if directory.uid != 0 {
            reasons.append("its directory \(path) is owned by \(directory.ownerName) (uid \(directory.uid)), not root")
            fixes.append("chown root \(path)")
        }
        if let writers = directory.otherWriters, !directory.isSticky {
            reasons.append((reasons.isEmpty ? "its directory \(path) is" : "is") + " writable by \(writers)")
            fixes.append("chmod \(directory.writeBitsToRemove) \(path)")
        }
        guard !reasons.isEmpty else { return nil }
        return joined(reasons) + " \(directory.details); run: " + fixes.joined(separator: " && ")
    }

    private static func joined(_ reasons: [String]) -> String {
        reasons.count <= 1 ? reasons.joined() : reasons.dropLast().joined(separator: ", ") + ", and " + reasons.last!
    }

    /// The directories above `path`, nearest first, ending with `/`.
    static func ancestors(of path: String) -> [String] {
        var components = path.split(separator: "/").map(String.init)
        var result: [String] = []
        while !components.isEmpty {
            components.removeLast()
            result.append("/" + components.joined(separator: "/"))
        }
        return result
    }
}

/// What stat(2) says about one path, as the trust checks need it.
private struct Entry {
    var mode: mode_t
    var uid: uid_t
    var gid: gid_t

    static func inspect(_ path: String, followingSymlink: Bool) -> Result<Entry, Errno> {
        let result = followingSymlink ? sys_stat(path) : sys_lstat(path)
        return result.map { Entry(mode: $0.st_mode, uid: $0.st_uid, gid: $0.st_gid) }
    }

    var isSymlink: Bool { mode & S_IFMT == S_IFLNK }
    var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
    var isSticky: Bool { mode & S_ISVTX != 0 }
    /// The owner's name for a message; an account that cannot be looked up is named by its uid,
    /// as one without an entry is.
    var ownerName: String {
        guard case .success(let account?) = sys_getpw(uid: uid) else { return "uid \(uid)" }
        return account.name
    }

    /// The group's name for a message, by its gid when it cannot be looked up.
    var groupName: String {
        guard case .success(let group?) = sys_getgr(gid: gid) else { return "gid \(gid)" }
        return group.name
    }

    /// Who besides the owner may write it: "other users", "group NAME", or nil.
    var otherWriters: String? {
        if mode & S_IWOTH != 0 { return "other users" }
        if mode & S_IWGRP != 0 { return "group \(groupName)" }
        return nil
    }

    /// The chmod argument that removes the unwanted write bits.
    var writeBitsToRemove: String { mode & S_IWOTH != 0 ? "go-w" : "g-w" }

    var setIDBits: String? {
        switch (mode & S_ISUID != 0, mode & S_ISGID != 0) {
        case (true, true): "setuid and setgid"
        case (true, false): "setuid"
        case (false, true): "setgid"
        case (false, false): nil
        }
    }

    /// `(mode 0644, owner root)`.
    var details: String {
        let octal = String(mode & 0o7777, radix: 8)
        return "(mode \(String(repeating: "0", count: max(0, 4 - octal.count)) + octal), owner \(ownerName))"
    }
}
