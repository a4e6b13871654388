internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

// Layer (a) of STYLE §11: the only code in this target's System and Logging folders that calls the
// C library's system calls. Each function captures `errno` right after the call, before anything
// else can overwrite it, through NetRulesSystem's layer (b): `valueOrErrno` runs once,
// `retryingOnEINTR` retries EINTR. `Errno` and `SystemCallError` are NetRulesSystem's too, so the
// daemon has one error shape for system calls.

// MARK: Descriptors

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

func sys_fstat(_ fd: CInt, _ buffer: UnsafeMutablePointer<stat>) -> Result<CInt, Errno> {
    valueOrErrno { fstat(fd, buffer) }
}

// MARK: Sockets

func sys_socket(_ domain: CInt, _ type: CInt, _ proto: CInt) -> Result<CInt, Errno> {
    valueOrErrno { socket(domain, type, proto) }
}

func sys_sendto(
    _ fd: CInt, _ buffer: UnsafeRawPointer, _ length: Int, _ flags: CInt,
    _ address: UnsafePointer<sockaddr>, _ addressLength: socklen_t
) -> Result<Int, Errno> {
    retryingOnEINTR { sendto(fd, buffer, length, flags, address, addressLength) }
}

// MARK: Files

func sys_open(_ path: String, _ flags: CInt, _ mode: mode_t) -> Result<CInt, Errno> {
    retryingOnEINTR { open(path, flags, mode) }
}

func sys_pread(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Result<Int, Errno> {
    retryingOnEINTR { pread(fd, buffer, count, offset) }
}

/// Flushes the file's data (and the metadata needed to read it back) to the disk, fdatasync(2).
func sys_fdatasync(_ fd: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { fdatasync(fd) }
}

func sys_ftruncate(_ fd: CInt, _ length: off_t) -> Result<CInt, Errno> {
    retryingOnEINTR { ftruncate(fd, length) }
}

func sys_lstat(_ path: String, _ buffer: UnsafeMutablePointer<stat>) -> Result<CInt, Errno> {
    valueOrErrno { lstat(path, buffer) }
}

func sys_stat(_ path: String, _ buffer: UnsafeMutablePointer<stat>) -> Result<CInt, Errno> {
    valueOrErrno { stat(path, buffer) }
}

/// The canonical absolute path (every symlink resolved), as realpath(3) returns it.
func sys_realpath(_ path: String) -> Result<String, Errno> {
    guard let resolved = realpath(path, nil) else { return .failure(Errno(rawValue: errno)) }
    defer { free(resolved) }
    return .success(String(cString: resolved))
}

/// The working directory, for making a relative path absolute.
func sys_getcwd() -> Result<String, Errno> {
    guard let directory = getcwd(nil, 0) else { return .failure(Errno(rawValue: errno)) }
    defer { free(directory) }
    return .success(String(cString: directory))
}

/// The user name of `uid`, looked up with the reentrant getpwuid_r(3); nil when there is none.
func sys_userName(_ uid: uid_t) -> String? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    let status = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
    guard status == 0, let found = result, let name = found.pointee.pw_name else { return nil }
    return String(cString: name)
}

/// The group name of `gid`, looked up with the reentrant getgrgid_r(3); nil when there is none.
func sys_groupName(_ gid: gid_t) -> String? {
    var entry = group()
    var result: UnsafeMutablePointer<group>?
    var buffer = [CChar](repeating: 0, count: 4096)
    let status = getgrgid_r(gid, &entry, &buffer, buffer.count, &result)
    guard status == 0, let found = result, let name = found.pointee.gr_name else { return nil }
    return String(cString: name)
}

// MARK: inotify

func sys_inotify_init1(_ flags: CInt) -> Result<CInt, Errno> {
    valueOrErrno { inotify_init1(flags) }
}

func sys_inotify_add_watch(_ fd: CInt, _ path: String, _ mask: UInt32) -> Result<CInt, Errno> {
    valueOrErrno { inotify_add_watch(fd, path, mask) }
}

// MARK: Signals and clocks

func sys_sigaction(
    _ signal: CInt, _ action: UnsafePointer<sigaction>?, _ previous: UnsafeMutablePointer<sigaction>?
) -> Result<CInt, Errno> {
    valueOrErrno { sigaction(signal, action, previous) }
}

/// CLOCK_MONOTONIC in microseconds, the clock systemd compares `MONOTONIC_USEC` with.
func sys_monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    // clock_gettime(CLOCK_MONOTONIC) cannot fail with a valid pointer and clock id.
    _ = clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}
