@preconcurrency import Glibc

/// Opens a directory one path component at a time, following no symbolic link that someone else
/// could have planted: where a root daemon writes a file it gives to another account.
///
/// The file's directory may be the new owner's (`/home/alice/.local/state/…`). A symbolic link
/// they put on the way (`.local` → `/etc`) would have root create or replace, and give them, a
/// file wherever it points. So each component is looked up with `O_NOFOLLOW` in the directory
/// opened before it, and a symbolic link is followed only when none but the trusted users (root
/// and the daemon's own) could have put it there or swapped it: it stands in a directory only they
/// can change (owned by one of them, not writable by its group or others), or it is theirs in a
/// sticky directory of theirs (`/tmp`: no one else may rename or remove it there). So `/var/run`
/// → `/run` is followed, and a link in the user's home is not. A `..` in a link's target is
/// taken by the same rule, with the directory it leaves. Anything else is refused: `ELOOP` from
/// `openat`.
///
/// Each step looks in the descriptor of the directory before it, so renaming a directory on the
/// way after it was opened changes nothing. Missing directories are created (0755 less the umask,
/// the daemon's, as `AtomicFile.makeDirectories` makes them), each fsynced into its parent.
package enum GuardedDirectory {
    /// At most this many symbolic links on one path, the kernel's own limit (`MAXSYMLINKS`).
    static let linkLimit = 40

    /// Opens the directory at the absolute `path`, for the `*at` calls and fsync(2).
    ///
    /// - Parameters:
    ///   - createMissing: Whether to create missing directories on the way.
    ///   - trusted: The users whose symbolic links may be followed where they alone can change them.
    /// - Returns: The directory, open `O_RDONLY` (a directory the daemon may search but not read,
    ///   mode `0711`, fails with `EACCES`: root reads them all).
    /// - Throws: `SystemCallError`: `openat` with `ELOOP` for a symbolic link it refuses (or too
    ///   many links), `ENOTDIR` for a file on the way, or the errno of the call that failed.
    package static func open(
        _ path: String, createMissing: Bool, trusted: Set<uid_t>
    ) throws(SystemCallError) -> FileDescriptor {
        precondition(path.hasPrefix("/"), "GuardedDirectory opens absolute paths")
        var pending = components(path)
        var current = try root()
        var links = 0
        while let name = pending.popLast() {
            let step: Step
            do throws(SystemCallError) {
                step = try current.withFileDescriptor { directory throws(SystemCallError) in
                    try Self.step(name, in: directory, createMissing: createMissing, trusted: trusted)
                }
            } catch {
                current.closeDiscardingError()
                throw error
            }
            switch step {
            case .opened(let next):
                current.closeDiscardingError()
                current = FileDescriptor(taking: next)
            case .created:
                pending.append(name)
            case .link(let target):
                links += 1
                guard links <= linkLimit else {
                    current.closeDiscardingError()
                    throw SystemCallError(call: "openat", errno: Errno(rawValue: ELOOP))
                }
                if target.hasPrefix("/") {
                    current.closeDiscardingError()
                    current = try root()
                }
                pending += components(target)
            }
        }
        return current
    }

    /// What one component led to.
    private enum Step {
        /// The next directory, open `O_RDONLY`.
        case opened(CInt)
        /// It was missing and is now made: look it up again.
        case created
        /// A symbolic link to follow, with its target.
        case link(String)
    }

    private static func step(
        _ name: String, in directory: CInt, createMissing: Bool, trusted: Set<uid_t>
    ) throws(SystemCallError) -> Step {
        // `O_RDONLY` rather than `O_PATH` (which Glibc's module leaves out with `_GNU_SOURCE`):
        // root reads any directory, and the last one is fsynced.
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        if name == ".." {
            // The parent is whatever directory this one sits in now: only those who can change
            // this one could have moved it.
            let here = try sys_fstat(directory).get(call: "fstat")
            guard onlyTrustedChange(here, trusted: trusted) else { throw refusal }
            return .opened(try sys_openat(directory, name, flags).get(call: "openat"))
        }
        switch sys_openat(directory, name, flags) {
        case .success(let next):
            return .opened(next)
        case .failure(.noSuchFileOrDirectory) where createMissing:
            switch sys_mkdirat(directory, name, 0o755) {
            case .success:
                _ = try sys_fsync(directory).get(call: "fsync")
            case .failure(.fileExists):
                break
            case .failure(let errno):
                throw SystemCallError(call: "mkdirat", errno: errno)
            }
            return .created
        case .failure(.notDirectory), .failure(Errno(rawValue: ELOOP)):
            // `O_NOFOLLOW | O_DIRECTORY` answers ENOTDIR for a link and a file alike.
            let entry = try sys_fstatat(directory, name, AT_SYMLINK_NOFOLLOW).get(call: "fstatat")
            guard entry.st_mode & S_IFMT == S_IFLNK else { throw SystemCallError(call: "openat", errno: .notDirectory) }
            let here = try sys_fstat(directory).get(call: "fstat")
            guard onlyTrustedChange(here, trusted: trusted) || trustedInSticky(entry, here, trusted: trusted) else {
                throw refusal
            }
            return .link(try sys_readlinkat(directory, name).get(call: "readlinkat"))
        case .failure(let errno):
            throw SystemCallError(call: "openat", errno: errno)
        }
    }

    /// The error for a link (or `..`) someone untrusted could have planted.
    private static var refusal: SystemCallError { SystemCallError(call: "openat", errno: Errno(rawValue: ELOOP)) }

    /// Whether only trusted users can add, remove or rename entries of `directory`. Access control
    /// lists are not read: a directory with one shows it in its group bits, which then refuse.
    private static func onlyTrustedChange(_ directory: stat, trusted: Set<uid_t>) -> Bool {
        trusted.contains(directory.st_uid) && directory.st_mode & 0o022 == 0
    }

    /// Whether `entry`, in a sticky `directory` (`/tmp`), can be renamed or removed only by
    /// trusted users: it is theirs, and so is the directory.
    private static func trustedInSticky(_ entry: stat, _ directory: stat, trusted: Set<uid_t>) -> Bool {
        directory.st_mode & S_ISVTX != 0 && trusted.contains(directory.st_uid) && trusted.contains(entry.st_uid)
    }

    /// `/`, open `O_RDONLY`.
    private static func root() throws(SystemCallError) -> FileDescriptor {
        FileDescriptor(taking: try sys_open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC).get(call: "open"))
    }

    /// The components of `path` as a stack: the first one last. Empty ones and `.` are dropped.
    private static func components(_ path: String) -> [String] {
        path.split(separator: "/").filter { $0 != "." }.reversed().map(String.init)
    }
}
