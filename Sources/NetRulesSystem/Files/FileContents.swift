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
