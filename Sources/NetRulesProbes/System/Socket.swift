@preconcurrency import Glibc
import Synchronization

/// The single owner of one socket descriptor: it closes exactly once.
///
/// Created non-blocking and close-on-exec. Raw access goes through ``withFileDescriptor(_:)``,
/// which throws `EBADF` once the socket is closed, so no code can use a number the kernel
/// may already have given to another file.
final class Socket: Sendable {
    private let descriptor: Mutex<CInt?>

    /// Opens a socket (`socket(2)`); `SOCK_NONBLOCK | SOCK_CLOEXEC` are always added.
    init(domain: CInt, type: CInt, protocol proto: CInt) throws(SystemCallError) {
        let flags = CInt(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        let fd = try sys_socket(domain, type | flags, proto).get("socket")
        descriptor = Mutex(fd)
    }

    deinit {
        if let fd = descriptor.withLock({ $0.take() }) { _ = sys_close(fd) }
    }

    /// Runs `body` with the descriptor; throws `EBADF` after ``close()``.
    func withFileDescriptor<T>(_ body: (CInt) throws(SystemCallError) -> T) throws(SystemCallError) -> T {
        // The lock is held only to read the number; holding it across a blocking call would
        // stall close(). close() from another thread during a call is the caller's race to avoid.
        guard let fd = descriptor.withLock({ $0 }) else {
            throw SystemCallError(call: "withFileDescriptor", errno: .badFileDescriptor)
        }
        return try body(fd)
    }

    /// The descriptor, or nil once closed (for poll sets).
    var fileDescriptor: CInt? { descriptor.withLock { $0 } }

    /// Closes the socket; later calls do nothing.
    func close() {
        if let fd = descriptor.withLock({ $0.take() }) { _ = sys_close(fd) }
    }

    /// Sets an integer socket option (`setsockopt(2)`).
    func setOption(level: CInt, name: CInt, value: CInt) throws(SystemCallError) {
        try withFileDescriptor { fd throws(SystemCallError) in
            _ = try sys_setsockopt(fd, level, name, value).get("setsockopt")
        }
    }
}
