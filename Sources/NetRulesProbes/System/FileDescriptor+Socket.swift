@preconcurrency import Glibc
import NetRulesSystem

extension FileDescriptor {
    /// Opens a socket (`socket(2)`) owned by a new `FileDescriptor`.
    ///
    /// `SOCK_NONBLOCK | SOCK_CLOEXEC` are always added (STYLE §13).
    static func socket(domain: CInt, type: CInt, protocol proto: CInt) throws(SystemCallError) -> FileDescriptor {
        let flags = CInt(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        return FileDescriptor(taking: try sys_socket(domain, type | flags, proto).get(call: "socket"))
    }

    /// Sets an integer socket option (`setsockopt(2)`).
    func setOption(level: CInt, name: CInt, value: CInt) throws(SystemCallError) {
        try withFileDescriptor { fd throws(SystemCallError) in
            _ = try sys_setsockopt(fd, level, name, value).get(call: "setsockopt")
        }
    }
}
