@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem
import Synchronization

/// The single owner of one control-socket descriptor (listening, accepted or client side).
///
/// It closes the descriptor exactly once, on `close()` or at the latest in `deinit`. Thread-safe,
/// with one invariant the users keep: nobody calls `close()` while another task or thread still
/// works on the raw number (the server closes a connection only after every wait on it returned),
/// so a number the kernel reuses is never touched.
final class ControlDescriptor: Sendable {
    private let state: Mutex<CInt?>

    /// Takes ownership of `fd`.
    init(taking fd: CInt) {
        state = Mutex(fd)
    }

    /// The raw descriptor.
    /// - Throws: `SystemCallError` with `EBADF` once closed.
    func withFileDescriptor<R>(_ body: (CInt) throws -> R) throws -> R {
        guard let fd = state.withLock({ $0 }) else {
            throw ControlSystemCallError(call: "withFileDescriptor", errno: ControlErrno(rawValue: EBADF))
        }
        return try body(fd)
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        let fd = state.withLock { value -> CInt? in
            defer { value = nil }
            return value
        }
        if let fd { _ = ControlSyscalls.close(fd) }
    }

    deinit {
        close()
    }

    /// What one non-blocking read produced.
    enum ReadResult: Equatable {
        case bytes(Int)
        case wouldBlock
        case endOfFile
    }

    /// Reads what is available, without blocking.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ReadResult {
        try withFileDescriptor { fd in
            switch ControlSyscalls.read(fd, buffer.baseAddress!, buffer.count) {
            case .success(0): return .endOfFile
            case .success(let n): return .bytes(n)
            case .failure(let e) where e.rawValue == EAGAIN: return .wouldBlock
            case .failure(let e): throw ControlSystemCallError(call: "read", errno: e)
            }
        }
    }

    /// Sends what the socket buffer takes, without blocking; nil when it takes nothing now.
    func send(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        try withFileDescriptor { fd in
            switch ControlSyscalls.send(fd, bytes.baseAddress!, bytes.count) {
            case .success(let n): return n
            case .failure(let e) where e.rawValue == EAGAIN: return nil
            case .failure(let e): throw ControlSystemCallError(call: "send", errno: e)
            }
        }
    }

    /// Runs `body` with `path` as a `sockaddr_un`.
    /// - Throws: `ControlSocketError` when the path does not fit `sun_path` (108 bytes with its NUL).
    static func withAddress<R>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R
    ) throws -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
            throw ControlSocketError(
                .invalidPath, "control socket path '\(path)' is empty or longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
