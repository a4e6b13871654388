internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

// Layer (a) and (b) of STYLE §11 for the control socket: the only code of the Control folder that
// calls the C library. Each call captures `errno` right after it returns.
//
// The functions live in a caseless namespace rather than as free `sys_` functions so they can never
// clash with a `System/Syscalls.swift` another part of this target adds; the error types are
// NetRulesLinux's public `Errno` and `SystemCallError`, spelled with their module so a
// target-local `Errno` cannot shadow them.

/// The error number type the control socket uses.
typealias ControlErrno = Errno
/// The failed-call type the control socket throws.
typealias ControlSystemCallError = SystemCallError

/// The system calls behind the control socket.
enum ControlSyscalls {
    /// Maps -1 to the errno the call left.
    @inline(__always)
    static func valueOrErrno<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, ControlErrno> {
        let value = body()
        if value == -1 { return .failure(ControlErrno(rawValue: errno)) }
        return .success(value)
    }

    /// Retries a call interrupted by a signal.
    @inline(__always)
    static func retryingOnEINTR<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, ControlErrno> {
        while true {
            let result = valueOrErrno(body)
            if case .failure(let e) = result, e.rawValue == EINTR { continue }
            if case .failure(let e) = result {
                assert(e.rawValue != EBADF && e.rawValue != EFAULT, "a control socket call failed with \(e): a bug")
            }
            return result
        }
    }

    static func socket(_ type: CInt) -> Result<CInt, ControlErrno> {
        valueOrErrno { Glibc.socket(AF_UNIX, type, 0) }
    }

    static func bind(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<CInt, ControlErrno>
    {
        valueOrErrno { Glibc.bind(fd, address, length) }
    }

    static func listen(_ fd: CInt, _ backlog: CInt) -> Result<CInt, ControlErrno> {
        valueOrErrno { Glibc.listen(fd, backlog) }
    }

    /// On a non-blocking socket `EAGAIN` means "no connection pending", which callers treat as normal.
    ///
    /// Swift's Glibc module leaves out `accept4` (it is declared only under `_GNU_SOURCE`), so it is
    /// looked up once with `dlsym`; plain `accept` followed by `fcntl` would leave a window in which
    /// an action spawned by another thread inherits the connection.
    static func accept4(_ fd: CInt, _ flags: CInt) -> Result<CInt, ControlErrno> {
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
        -> Result<CInt, ControlErrno>
    {
        valueOrErrno { Glibc.connect(fd, address, length) }
    }

    /// The peer's user id from its credentials (`SO_PEERCRED`, socket(7)), as the kernel recorded
    /// them at connect time.
    ///
    /// `struct ucred` is `_GNU_SOURCE`-only, so Swift's Glibc lacks it; its layout is fixed by the
    /// kernel ABI as three 32-bit fields: pid, uid, gid.
    static func peerUID(_ fd: CInt) -> Result<uid_t, ControlErrno> {
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        let result = valueOrErrno { Glibc.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) }
        return result.map { _ in credentials.1 }
    }

    static func poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout: CInt) -> Result<CInt, ControlErrno> {
        valueOrErrno { Glibc.poll(fds, nfds_t(count), timeout) }
    }

    static func read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Result<Int, ControlErrno> {
        retryingOnEINTR { Glibc.read(fd, buffer, count) }
    }

    /// `MSG_NOSIGNAL`, so a client that hangs up yields `EPIPE` instead of a SIGPIPE that kills the process.
    static func send(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int) -> Result<Int, ControlErrno> {
        retryingOnEINTR { Glibc.send(fd, buffer, count, CInt(MSG_NOSIGNAL)) }
    }

    static func write(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int) -> Result<Int, ControlErrno> {
        retryingOnEINTR { Glibc.write(fd, buffer, count) }
    }

    /// Never retried: after EINTR the descriptor is already closed on Linux, and retrying could close
    /// a descriptor another thread just opened (https://lwn.net/Articles/576478/).
    static func close(_ fd: CInt) -> Result<CInt, ControlErrno> {
        valueOrErrno { Glibc.close(fd) }
    }

    static func eventfd(_ flags: CInt) -> Result<CInt, ControlErrno> {
        valueOrErrno { CNetRulesLinux.eventfd(0, flags) }
    }

    static func unlink(_ path: String) -> Result<CInt, ControlErrno> {
        valueOrErrno { Glibc.unlink(path) }
    }

    static func lstat(_ path: String) -> Result<stat, ControlErrno> {
        var info = stat()
        return valueOrErrno { Glibc.lstat(path, &info) }.map { _ in info }
    }

    static func chmod(_ path: String, _ mode: mode_t) -> Result<CInt, ControlErrno> {
        retryingOnEINTR { Glibc.chmod(path, mode) }
    }

    static func mkdir(_ path: String, _ mode: mode_t) -> Result<CInt, ControlErrno> {
        valueOrErrno { Glibc.mkdir(path, mode) }
    }

    static func geteuid() -> uid_t { Glibc.geteuid() }
}

extension Result where Failure == ControlErrno {
    /// Layer (c) helper: the value, or a `SystemCallError` naming the call.
    func control(_ call: String) throws(ControlSystemCallError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let errno): throw ControlSystemCallError(call: call, errno: errno)
        }
    }
}
