@preconcurrency import Glibc
import Synchronization

/// The single owner of an open file descriptor: it closes the descriptor exactly once.
///
/// Raw access goes through `withFileDescriptor`, which throws once the descriptor is closed, so a
/// closed number (which the kernel may already have handed to someone else) is never used. The
/// lock is held during `body`, so `close` cannot run in the middle of a use.
final class FileDescriptor: Sendable {
    private let state: Mutex<CInt>

    /// Takes ownership of `rawValue`.
    init(adopting rawValue: CInt) {
        precondition(rawValue >= 0, "adopting an invalid file descriptor")
        state = Mutex(rawValue)
    }

    /// Whether `close` has run.
    var isClosed: Bool { state.withLock { $0 < 0 } }

    /// Calls `body` with the raw descriptor.
    /// - Throws: `SystemCallError` with EBADF once closed, or whatever `body` throws.
    func withFileDescriptor<R>(_ body: (CInt) throws -> R) throws -> R {
        try state.withLock { fd in
            guard fd >= 0 else { throw SystemCallError(call: "use of closed descriptor", errno: Errno(rawValue: EBADF)) }
            return try body(fd)
        }
    }

    /// Closes the descriptor; later calls do nothing.
    /// - Throws: `SystemCallError` from close(2). The descriptor is released even then.
    func close() throws(SystemCallError) {
        let fd = state.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        guard fd >= 0 else { return }
        _ = try sys_close(fd).get(call: "close")
    }

    deinit {
        // An owner dropped without close still must not leak; the error has nowhere to go.
        let fd = state.withLock { $0 }
        if fd >= 0 { _ = sys_close(fd) }
    }
}

extension FileDescriptor {
    /// Runs `body` with the descriptor and closes it afterwards, whatever happens.
    func closeAfter<R>(_ body: (FileDescriptor) throws -> R) throws -> R {
        defer { try? close() }
        return try body(self)
    }
}
