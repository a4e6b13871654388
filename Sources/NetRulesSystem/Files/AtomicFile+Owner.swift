@preconcurrency import Glibc

extension AtomicFile {
    /// The account and group a file is given to (`write:`'s `owner:`).
    package struct Ownership: Hashable, Sendable {
        package var uid: uid_t
        package var gid: gid_t

        package init(uid: uid_t, gid: gid_t) {
            self.uid = uid
            self.gid = gid
        }
    }

    /// Permission bits never carried over from a file that was there: setuid, setgid and
    /// world-write, which a `write:` never sets either.
    static let riskyBits: mode_t = S_ISUID | S_ISGID | S_IWOTH

    /// `replace`, for a file `owner` gets: the same temporary file, fsync and rename, reached
    /// through `GuardedDirectory` (no symbolic link someone else could have planted is followed on
    /// the way), and given away with fchown(2) on its own descriptor before a byte is written, so
    /// what is given away is the file just created, whatever the path names by then.
    ///
    /// A file that was there keeps its permission bits (less `riskyBits`), as with `replace`; the
    /// new one gets `owner` either way. Missing directories are created as the daemon's.
    /// - Parameter mode: Permission bits for a new file, set exactly (not less the umask).
    package static func replace(
        _ path: String, with contents: [UInt8], mode: UInt32, owner: Ownership
    ) throws(SystemCallError) {
        let (directoryPath, name) = split(path)
        let parent = try GuardedDirectory.open(directoryPath, createMissing: true, trusted: [0, sys_geteuid()])
        defer { parent.closeDiscardingError() }
        try parent.withFileDescriptor { directory throws(SystemCallError) in
            var permissions = mode_t(mode)
            switch sys_fstatat(directory, name, AT_SYMLINK_NOFOLLOW) {
            case .success(let info):
                try requireRegular(info, call: "fstatat")
                permissions = info.st_mode & 0o7777 & ~riskyBits
            case .failure(.noSuchFileOrDirectory):
                break
            case .failure(let errno):
                throw SystemCallError(call: "fstatat", errno: errno)
            }
            let temporary = ".\(name).netrules-\(randomSuffix()).tmp"
            let fd = try sys_openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                .get(call: "openat")
            let file = FileDescriptor(taking: fd)
            do throws(SystemCallError) {
                try give(fd, to: owner, permissions: permissions)
                try writeAll(fd, contents)
                _ = try sys_fsync(fd).get(call: "fsync")
                try file.close()
                _ = try sys_renameat(directory, temporary, directory, name).get(call: "renameat")
            } catch {
                file.closeDiscardingError()
                _ = sys_unlinkat(directory, temporary, 0)
                throw error
            }
            _ = try sys_fsync(directory).get(call: "fsync")
        }
    }

    /// `append`, for a file `owner` gets, through `GuardedDirectory` as `replace(_:with:mode:owner:)`.
    ///
    /// A file the call creates is given away on its descriptor. One that was there is given away
    /// only while it has no other name: a hard link the new owner made to a file of root's
    /// (`/etc/shadow`) is refused with `EMLINK` from `fstat`, nothing written. A symbolic link, a
    /// FIFO or a device at the path is refused as `append` refuses it (from `fstatat`).
    package static func append(
        _ path: String, record: [UInt8], mode: UInt32, owner: Ownership
    ) throws(SystemCallError) {
        let (directoryPath, name) = split(path)
        let parent = try GuardedDirectory.open(directoryPath, createMissing: true, trusted: [0, sys_geteuid()])
        defer { parent.closeDiscardingError() }
        try parent.withFileDescriptor { directory throws(SystemCallError) in
            let flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
            let fd: CInt
            let created: Bool
            switch sys_openat(directory, name, flags | O_CREAT | O_EXCL, 0o600) {
            case .success(let new):
                (fd, created) = (new, true)
            case .failure(.fileExists):
                try requireRegular(
                    try sys_fstatat(directory, name, AT_SYMLINK_NOFOLLOW).get(call: "fstatat"), call: "fstatat")
                (fd, created) = (try sys_openat(directory, name, flags).get(call: "openat"), false)
            case .failure(let errno):
                throw SystemCallError(call: "openat", errno: errno)
            }
            let file = FileDescriptor(taking: fd)
            defer { file.closeDiscardingError() }
            // What was opened, not what the path named a moment ago.
            let info = try sys_fstat(fd).get(call: "fstat")
            try requireRegular(info, call: "fstat")
            if created {
                try give(fd, to: owner, permissions: mode_t(mode))
            } else if info.st_uid != owner.uid || info.st_gid != owner.gid {
                guard info.st_nlink == 1 else { throw SystemCallError(call: "fstat", errno: Errno(rawValue: EMLINK)) }
                try give(fd, to: owner, permissions: info.st_mode & 0o7777 & ~riskyBits)
            }
            let written = try record.withUnsafeBytes { sys_write(fd, $0) }.get(call: "write")
            guard written == record.count else { throw SystemCallError(call: "write", errno: Errno(rawValue: ENOSPC)) }
            _ = try sys_fsync(fd).get(call: "fsync")
            if created { _ = try sys_fsync(directory).get(call: "fsync") }
        }
    }

    /// fchown(2), then fchmod(2): a change of owner clears setuid and setgid, and open(2) applied
    /// the umask, so the bits are set after it, exactly.
    private static func give(_ fd: CInt, to owner: Ownership, permissions: mode_t) throws(SystemCallError) {
        _ = try sys_fchown(fd, owner.uid, owner.gid).get(call: "fchown")
        _ = try sys_fchmod(fd, permissions).get(call: "fchmod")
    }
}
