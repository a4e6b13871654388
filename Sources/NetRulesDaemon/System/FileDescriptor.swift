@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem
import Synchronization

/// The single owner of one open file descriptor: it closes it exactly once.
///
/// Thread-safe: `close()` may race with `withFileDescriptor`, which then throws `EBADF` instead of
/// touching a number the kernel may already have handed to someone else.
final class FileDescriptor: Sendable {
    private let state: Mutex<CInt?>

    /// Takes ownership of `fd`.
    init(taking fd: CInt) {
        state = Mutex(fd)
    }

    /// Runs `body` with the raw descriptor.
    /// - Throws: `SystemCallError` with `EBADF` once closed, or what `body` throws.
    func withFileDescriptor<R>(_ body: (CInt) throws -> R) throws -> R {
        guard let fd = state.withLock({ $0 }) else {
            throw SystemCallError(call: "withFileDescriptor", errno: .badFileDescriptor)
        }
        return try body(fd)
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        guard
            let fd = state.withLock({ value -> CInt? in
                defer { value = nil }
                return value
            })
        else { return }
        _ = sys_close(fd)
    }

    deinit {
        // A leak is a bug in the owner, but closing here keeps a long-running daemon from running out of fds.
        close()
    }
}
