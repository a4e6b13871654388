internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesSystem

// Layer (a) of STYLE §11: the only code in this target that calls the C library's system calls.
// Each function captures `errno` right after the call, before anything else can overwrite it, through
// NetRulesSystem's layer (b): `valueOrErrno` runs once, `retryingOnEINTR` retries EINTR.

func sys_socket(_ domain: CInt, _ type: CInt, _ proto: CInt) -> Result<CInt, Errno> {
    valueOrErrno { socket(domain, type, proto) }
}

func sys_bind(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<CInt, Errno> {
    valueOrErrno { bind(fd, address, length) }
}

func sys_setsockopt(
    _ fd: CInt, _ level: CInt, _ name: CInt, _ value: UnsafeRawPointer, _ length: socklen_t
) -> Result<CInt, Errno> {
    valueOrErrno { setsockopt(fd, level, name, value, length) }
}

func sys_getsockname(_ fd: CInt, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>)
    -> Result<CInt, Errno>
{
    valueOrErrno { getsockname(fd, address, length) }
}

func sys_sendto(
    _ fd: CInt, _ buffer: UnsafeRawPointer, _ length: Int, _ flags: CInt,
    _ address: UnsafePointer<sockaddr>, _ addressLength: socklen_t
) -> Result<Int, Errno> {
    retryingOnEINTR { sendto(fd, buffer, length, flags, address, addressLength) }
}

func sys_recvmsg(_ fd: CInt, _ message: UnsafeMutablePointer<msghdr>, _ flags: CInt) -> Result<Int, Errno> {
    retryingOnEINTR { recvmsg(fd, message, flags) }
}

func sys_read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Result<Int, Errno> {
    retryingOnEINTR { read(fd, buffer, count) }
}

func sys_write(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int) -> Result<Int, Errno> {
    retryingOnEINTR { write(fd, buffer, count) }
}

/// Never retried: after EINTR the descriptor is already closed on Linux, and retrying could close
/// a descriptor another thread just opened (see https://lwn.net/Articles/576478/).
func sys_close(_ fd: CInt) -> Result<CInt, Errno> {
    valueOrErrno { close(fd) }
}

func sys_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { poll(fds, nfds_t(count), timeout) }
}

func sys_open(_ path: String, _ flags: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { open(path, flags) }
}

func sys_setns(_ fd: CInt, _ type: CInt) -> Result<CInt, Errno> {
    valueOrErrno { CNetRulesLinux_setns(fd, type) }
}

func sys_inotify_init1(_ flags: CInt) -> Result<CInt, Errno> {
    valueOrErrno { inotify_init1(flags) }
}

func sys_inotify_add_watch(_ fd: CInt, _ path: String, _ mask: UInt32) -> Result<CInt, Errno> {
    valueOrErrno { inotify_add_watch(fd, path, mask) }
}

func sys_pipe2(_ fds: UnsafeMutablePointer<CInt>, _ flags: CInt) -> Result<CInt, Errno> {
    valueOrErrno { CNetRulesLinux_pipe2(fds, flags) }
}

func sys_waitpid(_ pid: pid_t, _ status: UnsafeMutablePointer<CInt>, _ options: CInt) -> Result<pid_t, Errno> {
    retryingOnEINTR { waitpid(pid, status, options) }
}

func sys_kill(_ pid: pid_t, _ signal: CInt) -> Result<CInt, Errno> {
    valueOrErrno { kill(pid, signal) }
}

/// `posix_spawn` returns its error instead of setting `errno`.
func sys_posix_spawn(
    _ pid: UnsafeMutablePointer<pid_t>, _ path: String,
    _ actions: UnsafePointer<posix_spawn_file_actions_t>, _ attributes: UnsafePointer<posix_spawnattr_t>,
    _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>, _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>
) -> Result<CInt, Errno> {
    let result = posix_spawn(pid, path, actions, attributes, argv, envp)
    return result == 0 ? .success(0) : .failure(Errno(rawValue: result))
}

/// The calling thread's kernel id (gettid(2)); it cannot fail.
func sys_gettid() -> pid_t {
    pid_t(CNetRulesLinux_gettid())
}
