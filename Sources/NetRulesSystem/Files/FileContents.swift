@preconcurrency import Glibc

/// Reading a whole small file (a state file, a journal, an outbox entry) with the failing call as
/// the error.
package enum FileContents {
    /// The bytes of the file at `path`, at most `limit` of them; nil when there is no such file.
    /// - Throws: `SystemCallError` from `open` (other than `ENOENT`) or `read`.
    package static func read(_ path: String, limit: Int = .max) throws(SystemCallError) -> [UInt8]? {
        let fd: CInt
        switch sys_open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0) {
        case .success(let opened): fd = opened
        case .failure(.noSuchFileOrDirectory): return nil
        case .failure(let errno): throw SystemCallError(call: "open", errno: errno)
        }
        let file = FileDescriptor(taking: fd)
        defer { file.closeDiscardingError() }
        return try readAll(fd, limit: limit)
    }

    /// The bytes of the regular file at `path`, a symbolic link followed; nil when it cannot be
    /// read: missing, not readable by this user, a directory or another kind of file.
    ///
    /// For the files a person names (rule files, a timeline, a certificate), where every such
    /// failure gets the same message. The open does not block, so a FIFO is refused, not waited on.
    package static func readRegularFile(_ path: String) -> [UInt8]? {
        guard case .success(let fd) = sys_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0) else { return nil }
        let file = FileDescriptor(taking: fd)
        defer { file.closeDiscardingError() }
        guard case .success(let info) = sys_fstat(fd), info.st_mode & S_IFMT == S_IFREG else { return nil }
        do {
            return try readAll(fd, limit: .max)
        } catch {
            return nil
        }
    }

    /// What is left to read of `fd`, at most `limit` bytes.
    private static func readAll(_ fd: CInt, limit: Int) throws(SystemCallError) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while out.count < limit {
            let count = try chunk.withUnsafeMutableBytes { sys_read(fd, $0) }.get(call: "read")
            if count == 0 { break }
            out += chunk[..<min(count, limit - out.count)]
        }
        return out
    }
}
