@preconcurrency import Glibc
import NetRulesSystem

// Layer (a) of STYLE §11: the only code in this target that calls these Glibc functions. Each
// captures errno immediately through NetRulesSystem's layer (b) and retries EINTR (never for close,
// whose descriptor is gone after an EINTR on Linux; see close(2), "Dealing with error returns from close()").

func sys_socket(_ domain: CInt, _ type: CInt, _ proto: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { socket(domain, type, proto) }
}

func sys_close(_ fd: CInt) -> Result<CInt, Errno> {
    valueOrErrno { close(fd) }
}

func sys_setsockopt<T>(_ fd: CInt, _ level: CInt, _ name: CInt, _ value: T) -> Result<CInt, Errno> {
    withUnsafeBytes(of: value) { bytes in
        retryingOnEINTR { setsockopt(fd, level, name, bytes.baseAddress, socklen_t(bytes.count)) }
    }
}

func sys_getsockopt_int(_ fd: CInt, _ level: CInt, _ name: CInt) -> Result<CInt, Errno> {
    var value: CInt = 0
    var length = socklen_t(MemoryLayout<CInt>.size)
    return retryingOnEINTR { getsockopt(fd, level, name, &value, &length) }.map { _ in value }
}

func sys_getsockname(_ fd: CInt, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Result<
    CInt, Errno
> {
    retryingOnEINTR { getsockname(fd, address, &length) }
}

func sys_bind(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<CInt, Errno> {
    retryingOnEINTR { bind(fd, address, length) }
}

func sys_connect(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<CInt, Errno> {
    retryingOnEINTR { connect(fd, address, length) }
}

func sys_sendto(
    _ fd: CInt, _ bytes: UnsafeRawBufferPointer, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
) -> Result<Int, Errno> {
    retryingOnEINTR { sendto(fd, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL), address, length) }
}

func sys_recvfrom(
    _ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer, _ address: UnsafeMutablePointer<sockaddr>,
    _ length: inout socklen_t
) -> Result<Int, Errno> {
    retryingOnEINTR { recvfrom(fd, buffer.baseAddress, buffer.count, 0, address, &length) }
}

func sys_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { poll(fds, nfds_t(count), timeoutMilliseconds) }
}

func sys_pipe_nonblocking() -> Result<(CInt, CInt), Errno> {
    var fds: [CInt] = [-1, -1]
    // pipe2(2) is not imported by the Glibc module (it needs _GNU_SOURCE), so set the flags after.
    return retryingOnEINTR { pipe(&fds) }.flatMap { _ in
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            if case .failure(let error) = retryingOnEINTR({ fcntl(fd, F_SETFL, O_NONBLOCK) }) { return .failure(error) }
        }
        return .success((fds[0], fds[1]))
    }
}

func sys_read(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    retryingOnEINTR { read(fd, buffer.baseAddress, buffer.count) }
}

func sys_write(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    retryingOnEINTR { write(fd, bytes.baseAddress, bytes.count) }
}
