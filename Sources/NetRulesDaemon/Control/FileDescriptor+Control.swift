@preconcurrency import Glibc
import NetRulesSystem

/// The control socket's use of a descriptor (listening, accepted or client side): non-blocking
/// reads and sends, and the `sockaddr_un` of a socket path.
///
/// NetRulesSystem's `FileDescriptor` owns the descriptor and closes it exactly once; the server
/// closes a connection only after every wait on it returned.
extension FileDescriptor {
    /// What one non-blocking read produced.
    enum ReadResult: Equatable {
        case bytes(Int)
        case wouldBlock
        case endOfFile
    }

    /// Reads what is available, without blocking.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ReadResult {
        try withFileDescriptor { fd in
            let result = sys_read(fd, buffer)
            if case .failure(.wouldBlock) = result { return .wouldBlock }
            let count = try result.get(call: "read")
            return count == 0 ? .endOfFile : .bytes(count)
        }
    }

    /// Sends what the socket buffer takes, without blocking; nil when it takes nothing now.
    func send(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        try withFileDescriptor { fd in
            let result = sys_send(fd, bytes, CInt(MSG_NOSIGNAL))
            if case .failure(.wouldBlock) = result { return nil }
            return try result.get(call: "send")
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
