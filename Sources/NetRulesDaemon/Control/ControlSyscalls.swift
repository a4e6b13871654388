internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

// Layer (a) of STYLE §11 for the control socket: the only code of the Control folder that calls
// the C library. Each call captures `errno` right after it returns, through NetRulesSystem's layer
// (b) (`valueOrErrno`, `retryingOnEINTR`); layer (c) is NetRulesSystem's `Result.get(call:)`.
//
// The functions live in a caseless namespace rather than as free `sys_` functions because several
// share a name with a `System/Syscalls.swift` wrapper but differ from it: `socket` is AF_UNIX only,
// `poll` is not retried on EINTR (`ControlThread.poll` recomputes its timeout), `lstat` returns
// the `stat`.

/// The system calls behind the control socket.
enum ControlSyscalls {
    static func socket(_ type: CInt) -> Result<CInt, Errno> {
        valueOrErrno { Glibc.socket(AF_UNIX, type, 0) }
    }

    static func bind(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<CInt, Errno> {
        valueOrErrno { Glibc.bind(fd, address, length) }
    }

    static func listen(_ fd: CInt, _ backlog: CInt) -> Result<CInt, Errno> {
        valueOrErrno { Glibc.listen(fd, backlog) }
    }

    /// On a non-blocking socket `EAGAIN` means "no connection pending", which callers treat as normal.
    ///
    /// Swift's Glibc module leaves out `accept4` (it is declared only under `_GNU_SOURCE`), so it is
    /// looked up once with `dlsym`; plain `accept` followed by `fcntl` would leave a window in which
    /// an action spawned by another thread inherits the connection.
    static func accept4(_ fd: CInt, _ flags: CInt) -> Result<CInt, Errno> {
        retryingOnEINTR { acceptWithFlags(fd, nil, nil, flags) }
    }

    private typealias Accept4 =
        @convention(c) (
            CInt, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, CInt
        ) -> CInt

    private static let acceptWithFlags: Accept4 = {
        // RTLD_DEFAULT is the null handle in glibc. accept4 has been in glibc since 2.10.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4") else {
            fatalError("glibc without accept4")
        }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()

    /// Not retried on EINTR: an interrupted connect continues asynchronously, and a second call would
    /// report EALREADY. A UNIX-domain connect completes or fails at once anyway.
    static func connect(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t)
        -> Result<CInt, Errno>
    {
        valueOrErrno { Glibc.connect(fd, address, length) }
    }

    /// The peer's user id from its credentials (`SO_PEERCRED`, socket(7)), as the kernel recorded
    /// them at connect time.
    ///
    /// `struct ucred` is `_GNU_SOURCE`-only, so Swift's Glibc lacks it; its layout is fixed by the
    /// kernel ABI as three 32-bit fields: pid, uid, gid.
    static func peerUID(_ fd: CInt) -> Result<uid_t, Errno> {
        peerCredentials(fd).map(\.uid)
    }

    /// The peer's process and user ids (`SO_PEERCRED`), as above.
    static func peerCredentials(_ fd: CInt) -> Result<(pid: pid_t, uid: uid_t), Errno> {
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        let result = valueOrErrno { Glibc.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) }
        return result.map { _ in (credentials.0, credentials.1) }
    }

    static func poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout: CInt) -> Result<CInt, Errno> {
        valueOrErrno { Glibc.poll(fds, nfds_t(count), timeout) }
    }

    static func read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Result<Int, Errno> {
        retryingOnEINTR { Glibc.read(fd, buffer, count) }
    }

    /// `MSG_NOSIGNAL`, so a client that hangs up yields `EPIPE` instead of a SIGPIPE that kills the process.
    static func send(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int) -> Result<Int, Errno> {
        retryingOnEINTR { Glibc.send(fd, buffer, count, CInt(MSG_NOSIGNAL)) }
    }

    static func write(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int) -> Result<Int, Errno> {
        retryingOnEINTR { Glibc.write(fd, buffer, count) }
    }

    static func eventfd(_ flags: CInt) -> Result<CInt, Errno> {
        valueOrErrno { CNetRulesLinux.eventfd(0, flags) }
    }

    static func unlink(_ path: String) -> Result<CInt, Errno> {
        valueOrErrno { Glibc.unlink(path) }
    }

    static func lstat(_ path: String) -> Result<stat, Errno> {
        var info = stat()
        return valueOrErrno { Glibc.lstat(path, &info) }.map { _ in info }
    }

    static func chmod(_ path: String, _ mode: mode_t) -> Result<CInt, Errno> {
        retryingOnEINTR { Glibc.chmod(path, mode) }
    }

    static func mkdir(_ path: String, _ mode: mode_t) -> Result<CInt, Errno> {
        valueOrErrno { Glibc.mkdir(path, mode) }
    }

    static func geteuid() -> uid_t { Glibc.geteuid() }
}
