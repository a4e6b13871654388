@preconcurrency import Glibc
import NetRulesTesting
import Synchronization

/// The test's end of `NOTIFY_SOCKET`: a bound `AF_UNIX` datagram socket collecting what the
/// daemon sends with sd_notify (`READY=1`, `RELOADING=1`, `STOPPING=1`).
///
/// A path socket, not an abstract one, because abstract names belong to a network namespace
/// and the daemon runs in another. Invariant for `@unchecked Sendable`: `fd` is immutable and
/// the received messages are behind a mutex.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let fd: CInt
    private let received = Mutex<[String]>([])

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket(AF_UNIX): errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw TestError("path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(fd)
            throw TestError("bind \(path): errno \(errno)")
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Every datagram so far, in order; one datagram may hold several newline-separated assignments.
    var messages: [String] {
        drain()
        return received.withLock { $0 }
    }

    /// How many datagrams so far contained the line `assignment` (such as `READY=1`).
    func count(_ assignment: String) -> Int {
        messages.filter { $0.split(separator: "\n").contains(Substring(assignment)) }.count
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { return }
            let text = String(decoding: buffer[..<n], as: UTF8.self)
            received.withLock { $0.append(text) }
        }
    }
}
