@preconcurrency import Glibc

// Layer (a) of STYLE §11: the only code in this target that calls these Glibc functions. Each
// captures errno immediately and retries EINTR (never for close, whose descriptor is gone
// after an EINTR on Linux; see close(2), "Dealing with error returns from close()").

/// Runs `body` until it does not fail with EINTR, returning its value or the errno it set.
@inline(__always)
func valueOrErrno<T: BinaryInteger>(retryOnInterrupt: Bool = true, _ body: () -> T) -> Result<T, Errno> {
    while true {
        let value = body()
        if value >= 0 { return .success(value) }
        let error = Errno.current
        if retryOnInterrupt && error == .interrupted { continue }
        return .failure(error)
    }
}

func sys_socket(_ domain: CInt, _ type: CInt, _ proto: CInt) -> Result<CInt, Errno> {
    valueOrErrno { socket(domain, type, proto) }
}

func sys_close(_ fd: CInt) -> Result<CInt, Errno> {
    valueOrErrno(retryOnInterrupt: false) { close(fd) }
}

func sys_setsockopt<T>(_ fd: CInt, _ level: CInt, _ name: CInt, _ value: T) -> Result<CInt, Errno> {
    withUnsafeBytes(of: value) { bytes in
        valueOrErrno { setsockopt(fd, level, name, bytes.baseAddress, socklen_t(bytes.count)) }
    }
}

func sys_getsockopt_int(_ fd: CInt, _ level: CInt, _ name: CInt) -> Result<CInt, Errno> {
    var value: CInt = 0
    var length = socklen_t(MemoryLayout<CInt>.size)
    return valueOrErrno { getsockopt(fd, level, name, &value, &length) }.map { _ in value }
}

func sys_getsockname(_ fd: CInt, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Result<CInt, Errno> {
    valueOrErrno { getsockname(fd, address, &length) }
}

func sys_connect(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<CInt, Errno> {
    valueOrErrno { connect(fd, address, length) }
}

func sys_sendto(
    _ fd: CInt, _ bytes: UnsafeRawBufferPointer, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
) -> Result<Int, Errno> {
    valueOrErrno { sendto(fd, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL), address, length) }
}

func sys_recvfrom(
    _ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer, _ address: UnsafeMutablePointer<sockaddr>,
    _ length: inout socklen_t
) -> Result<Int, Errno> {
    valueOrErrno { recvfrom(fd, buffer.baseAddress, buffer.count, 0, address, &length) }
}

func sys_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: CInt) -> Result<CInt, Errno> {
    valueOrErrno { poll(fds, nfds_t(count), timeoutMilliseconds) }
}

func sys_pipe_nonblocking() -> Result<(CInt, CInt), Errno> {
    var fds: [CInt] = [-1, -1]
    // pipe2(2) is not imported by the Glibc module (it needs _GNU_SOURCE), so set the flags after.
    return valueOrErrno { pipe(&fds) }.flatMap { _ in
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            if case .failure(let error) = valueOrErrno({ fcntl(fd, F_SETFL, O_NONBLOCK) }) { return .failure(error) }
        }
        return .success((fds[0], fds[1]))
    }
}

func sys_read(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    valueOrErrno { read(fd, buffer.baseAddress, buffer.count) }
}

func sys_write(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    valueOrErrno { write(fd, bytes.baseAddress, bytes.count) }
}

extension Result where Failure == Errno {
    /// Layer (c) helper: the value, or a ``SystemCallError`` naming `call`.
    func get(_ call: String) throws(SystemCallError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let errno):
            assert(errno != .badFileDescriptor, "'\(call)' on a closed descriptor")
            throw SystemCallError(call: call, errno: errno)
        }
    }
}
