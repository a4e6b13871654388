@preconcurrency import Glibc
import NetRulesSystem

// Layer (a) of STYLE §11: the only code in this target that calls the C functions. Each wrapper
// captures errno right after the call through NetRulesSystem's layer (b): `retryingOnEINTR` retries
// EINTR, `valueOrErrno` runs the call once.

func sys_open(_ path: String, _ flags: CInt, _ mode: mode_t = 0) -> Result<CInt, Errno> {
    retryingOnEINTR { open(path, flags, mode) }
}

func sys_openat(_ directory: CInt, _ path: String, _ flags: CInt, _ mode: mode_t = 0) -> Result<CInt, Errno> {
    retryingOnEINTR { openat(directory, path, flags, mode) }
}

func sys_read(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    retryingOnEINTR { read(fd, buffer.baseAddress, buffer.count) }
}

func sys_write(_ fd: CInt, _ buffer: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    retryingOnEINTR { write(fd, buffer.baseAddress, buffer.count) }
}

/// Never retried: on Linux the descriptor is released even when close reports EINTR, and a retry
/// could close a descriptor another thread has just been given (see the close(2) NOTES).
func sys_close(_ fd: CInt) -> Result<CInt, Errno> {
    valueOrErrno { close(fd) }
}

func sys_fsync(_ fd: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { fsync(fd) }
}

func sys_rename(_ old: String, _ new: String) -> Result<CInt, Errno> {
    retryingOnEINTR { rename(old, new) }
}

func sys_unlink(_ path: String) -> Result<CInt, Errno> {
    retryingOnEINTR { unlink(path) }
}

func sys_mkdir(_ path: String, _ mode: mode_t) -> Result<CInt, Errno> {
    retryingOnEINTR { mkdir(path, mode) }
}

func sys_fchmod(_ fd: CInt, _ mode: mode_t) -> Result<CInt, Errno> {
    retryingOnEINTR { fchmod(fd, mode) }
}

func sys_access(_ path: String, _ mode: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { access(path, mode) }
}

func sys_stat(_ path: String) -> Result<stat, Errno> {
    var info = stat()
    return retryingOnEINTR { stat(path, &info) }.map { _ in info }
}

func sys_lstat(_ path: String) -> Result<stat, Errno> {
    var info = stat()
    return retryingOnEINTR { lstat(path, &info) }.map { _ in info }
}

func sys_fstat(_ fd: CInt) -> Result<stat, Errno> {
    var info = stat()
    return retryingOnEINTR { fstat(fd, &info) }.map { _ in info }
}

func sys_kill(_ pid: pid_t, _ signal: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { kill(pid, signal) }
}

func sys_waitpid(_ pid: pid_t, _ status: inout CInt, _ options: CInt) -> Result<pid_t, Errno> {
    retryingOnEINTR { waitpid(pid, &status, options) }
}

func sys_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: CInt) -> Result<CInt, Errno> {
    // Not retried here: after EINTR the caller recomputes its timeout from the clock.
    valueOrErrno { poll(fds, nfds_t(count), timeoutMilliseconds) }
}

func sys_setNonBlocking(_ fd: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { fcntl(fd, F_GETFL) }.flatMap { flags in retryingOnEINTR { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }
}

/// realpath(3): the physical absolute path, symbolic links resolved.
func sys_realpath(_ path: String) -> Result<String, Errno> {
    guard let resolved = realpath(path, nil) else { return .failure(.current) }
    defer { free(resolved) }
    return .success(String(cString: resolved))
}

/// posix_spawn(3) reports its error as the return value rather than in errno.
func sys_posix_spawn(
    _ path: String, _ fileActions: UnsafePointer<posix_spawn_file_actions_t>,
    _ attributes: UnsafePointer<posix_spawnattr_t>, _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>,
    _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>
) -> Result<pid_t, Errno> {
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, fileActions, attributes, argv, envp)
    return result == 0 ? .success(pid) : .failure(Errno(rawValue: result))
}

func sys_pipe2(_ flags: CInt) -> Result<(read: CInt, write: CInt), Errno> {
    guard let pipe2 = GNUExtensions.pipe2 else { return .failure(.notImplemented) }
    var ends: (CInt, CInt) = (-1, -1)
    return withUnsafeMutableBytes(of: &ends) { raw in
        retryingOnEINTR { pipe2(raw.baseAddress!.assumingMemoryBound(to: CInt.self), flags) }
    }.map { _ in (ends.0, ends.1) }
}

func sys_pidfd_open(_ pid: pid_t) -> Result<CInt, Errno> {
    guard let pidfdOpen = GNUExtensions.pidfdOpen else { return .failure(.notImplemented) }
    return retryingOnEINTR { pidfdOpen(pid, 0) }
}

/// Functions glibc exports only under `_GNU_SOURCE`, which Swift's `Glibc` module does not define,
/// resolved once by name. All exist in glibc 2.36 (Debian 12); a missing one is nil and its caller
/// degrades as documented there.
enum GNUExtensions {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<CInt>, CInt) -> CInt
    typealias PidfdOpen = @convention(c) (pid_t, CUnsignedInt) -> CInt
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> CInt
    typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, CInt) -> CInt
    typealias SignalDescription = @convention(c) (CInt) -> UnsafePointer<CChar>?

    /// `pipe2(2)`: lets both ends be close-on-exec from birth, with no window for another thread's spawn.
    static let pipe2: Pipe2? = symbol("pipe2")
    /// `pidfd_open(2)`: a pollable descriptor that becomes readable when the child exits.
    static let pidfdOpen: PidfdOpen? = symbol("pidfd_open")
    /// `posix_spawn_file_actions_addchdir_np(3)`: `cwd:` without an intermediate shell.
    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
    /// `posix_spawn_file_actions_addclosefrom_np(3)`: closes descriptors some library forgot to mark close-on-exec.
    static let addClosefrom: AddClosefrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    /// `sigdescr_np(3)` (glibc 2.32): what `strsignal(3)` says in the C locale, without its
    /// static buffer, so it is safe from any thread.
    static let signalDescription: SignalDescription? = symbol("sigdescr_np")

    private static func symbol<F>(_ name: String) -> F? {
        // RTLD_DEFAULT is the null handle in glibc.
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: F.self)
    }
}

/// The names in a directory, without `.` and `..`. readdir(3) reports errors only through errno,
/// so errno is cleared before each call.
func sys_listDirectory(_ path: String) -> Result<[String], Errno> {
    guard let directory = opendir(path) else { return .failure(.current) }
    defer { closedir(directory) }
    var names: [String] = []
    while true {
        errno = 0
        guard let entry = readdir(directory) else {
            return errno == 0 ? .success(names) : .failure(.current)
        }
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
}
