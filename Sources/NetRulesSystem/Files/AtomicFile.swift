@preconcurrency import Glibc

/// File writes that a crash cannot tear.
///
/// `replace` writes a temporary file in the target's directory, fsyncs it, renames it over the
/// target and fsyncs the directory: rename(2) within one file system is atomic, so a reader (or
/// the next boot) sees the old file or the new one, never a mixture, even if the process is killed
/// at any instant. A kill between the write and the rename can leave the temporary file
/// (`.NAME.netrules-XXXXXXXXXXXXXXXX.tmp`) behind; it is never read, and it is not cleaned up
/// automatically because another writer of the same target may own it.
///
/// `append` writes the whole record with one write(2) on an `O_APPEND` descriptor, so records of
/// concurrent writers do not interleave, and fsyncs it.
///
/// Both refuse a target that exists and is not a regular file: a symlink (planted in a
/// world-writable directory, it would make root write wherever it points; `append` opens with
/// `O_NOFOLLOW`), a FIFO (opened `O_NONBLOCK`, so it never blocks), a device node or a socket.
/// A refusal is the error `ELOOP` (symlink) or `EINVAL` (anything else) from the call that saw it.
///
/// The one crash-safe file primitive of the package: the `write` action, the webhook outbox, the
/// daemon's `state.json` and history rewrites all use it, and every failure is the
/// `SystemCallError` of the call that failed.
package enum AtomicFile {
    /// Replaces the file at `path` with `contents`.
    /// - Parameters:
    ///   - mode: Permission bits for a new file; an existing file keeps its own.
    ///   - createDirectories: Whether to create missing parent directories (mode 0755).
    ///   - sync: Whether to fsync the file and its directory. Without it the replacement is still
    ///     atomic and survives the process being killed (the page cache holds it), not power loss.
    package static func replace(
        _ path: String, with contents: [UInt8], mode: UInt32, createDirectories: Bool = true, sync: Bool = true
    ) throws(SystemCallError) {
        let (directory, name) = split(path)
        if createDirectories { try makeDirectories(directory) }
        var permissions = mode_t(mode)
        switch sys_lstat(path) {
        case .success(let info):
            // rename(2) would replace a symlink or a device node with our file: refuse instead.
            try requireRegular(info, call: "lstat")
            permissions = info.st_mode & 0o7777
        case .failure(.noSuchFileOrDirectory):
            break
        case .failure(let errno):
            throw SystemCallError(call: "lstat", errno: errno)
        }
        let temporary = "\(directory)/.\(name).netrules-\(randomSuffix()).tmp"
        let fd = try sys_open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions).get(call: "open")
        let file = FileDescriptor(taking: fd)
        do {
            // open(2) applies the umask; the rule asked for exact bits.
            _ = try sys_fchmod(fd, permissions).get(call: "fchmod")
            try writeAll(fd, contents)
            if sync { _ = try sys_fsync(fd).get(call: "fsync") }
            try file.close()
            _ = try sys_rename(temporary, path).get(call: "rename")
        } catch {
            file.closeDiscardingError()
            _ = sys_unlink(temporary)
            throw error
        }
        if sync { try syncDirectory(directory) }
    }

    /// Appends `record` to the file at `path` in a single write(2).
    package static func append(
        _ path: String, record: [UInt8], mode: UInt32, createDirectories: Bool = true
    ) throws(SystemCallError) {
        let (directory, _) = split(path)
        if createDirectories { try makeDirectories(directory) }
        let fd = try sys_open(
            path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode_t(mode)
        ).get(call: "open")
        let file = FileDescriptor(taking: fd)
        defer { file.closeDiscardingError() }
        try requireRegular(try sys_fstat(fd).get(call: "fstat"), call: "fstat")
        let written = try record.withUnsafeBytes { sys_write(fd, $0) }.get(call: "write")
        // A short write would leave half a record; regular files only do that when the disk is
        // full, and saying so beats pretending.
        guard written == record.count else { throw SystemCallError(call: "write", errno: Errno(rawValue: ENOSPC)) }
        _ = try sys_fsync(fd).get(call: "fsync")
    }

    /// Throws unless `info` describes a regular file.
    static func requireRegular(_ info: stat, call: String) throws(SystemCallError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK: throw SystemCallError(call: call, errno: Errno(rawValue: ELOOP))
        default: throw SystemCallError(call: call, errno: Errno(rawValue: EINVAL))
        }
    }

    /// `mkdir -p`, fsyncing each parent it adds an entry to, so a created path survives a crash.
    /// Each directory it creates gets 0755 less the umask or, given `mode`, exactly `mode` (the
    /// state directory's 0700, whatever the umask); one that exists is left as it is.
    package static func makeDirectories(_ path: String, mode: mode_t? = nil) throws(SystemCallError) {
        guard !path.isEmpty, path != "/" else { return }
        if case .success(let info) = sys_stat(path) {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemCallError(call: "mkdir", errno: .notDirectory) }
            return
        }
        let (parent, _) = split(path)
        try makeDirectories(parent, mode: mode)
        switch sys_mkdir(path, mode ?? 0o755) {
        case .success:
            // A directory left with the umask's mode still works; an exact mode only narrows who reads it.
            if let mode { _ = sys_chmod(path, mode) }
        case .failure(.fileExists): break
        case .failure(let errno): throw SystemCallError(call: "mkdir", errno: errno)
        }
        try syncDirectory(parent)
    }

    /// fsync(2) on a directory makes its entries (a rename, a new file) durable.
    package static func syncDirectory(_ path: String) throws(SystemCallError) {
        let fd = try sys_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC).get(call: "open")
        let directory = FileDescriptor(taking: fd)
        defer { directory.closeDiscardingError() }
        _ = try sys_fsync(fd).get(call: "fsync")
    }

    static func writeAll(_ fd: CInt, _ bytes: [UInt8]) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            offset += try bytes.withUnsafeBytes { sys_write(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                .get(call: "write")
        }
    }

    /// The directory and the last component; a bare name lives in `.`.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    static func randomSuffix() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
