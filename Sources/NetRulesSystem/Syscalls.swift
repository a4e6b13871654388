// `package`, not `internal`: the C types in the signatures below (sockaddr, off_t, pid_t, …) resolve
// through CNetRulesLinux, which includes the same system headers, and a package function may not
// name a type from an internal import. No C type reaches a package signature.
package import CNetRulesLinux
@preconcurrency import Glibc

// Layer (a) of STYLE §11 for the whole package: the only code that calls these C library
// functions. Each wrapper captures `errno` right after the call, through layer (b)
// (`retryingOnEINTR`, `valueOrErrno`), and returns `Result<_, Errno>`; layer (c) is the owning
// type's throwing method, usually via `Result.get(call:)`. Functions glibc declares only under
// `_GNU_SOURCE` are reached through CNetRulesLinux's out-of-line wrappers (shim.c), never through
// `dlsym` or `syscall()`. The file is long because it is the package's one table of system calls.
//
// EINTR policy, the same for every caller:
//
// - Calls that cannot lose progress when interrupted are retried (`retryingOnEINTR`): reads,
//   writes, sends and receives (which report EINTR only when nothing was transferred), opens,
//   file and socket set-up, waitpid, and so on.
// - `close` is never retried: on Linux the descriptor is released even when close reports EINTR,
//   and a retry could close a descriptor another thread has just been given (see the close(2)
//   NOTES and https://lwn.net/Articles/576478/).
// - `connect` is never retried: an interrupted connect carries on asynchronously and a second call
//   reports EALREADY, so callers treat EINTR like EINPROGRESS (connect(2)).
// - `poll` is retried with the time that is left, recomputed from `ContinuousClock`, so a signal
//   neither ends a wait early nor stretches it. No caller sees EINTR from `sys_poll`, and a result
//   of 0 always means the timeout elapsed.
// - Calls that return their error instead of setting errno (posix_spawn, pthread_create) cannot
//   report EINTR and run once.

// MARK: Descriptors

/// read(2).
package func sys_read(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    retryingOnEINTR { read(fd, buffer.baseAddress, buffer.count) }
}

/// write(2).
package func sys_write(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    retryingOnEINTR { write(fd, bytes.baseAddress, bytes.count) }
}

/// pread(2).
package func sys_pread(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer, _ offset: off_t) -> Result<Int, Errno> {
    retryingOnEINTR { pread(fd, buffer.baseAddress, buffer.count, offset) }
}

/// pwrite(2).
package func sys_pwrite(_ fd: CInt, _ bytes: UnsafeRawBufferPointer, _ offset: off_t) -> Result<Int, Errno> {
    retryingOnEINTR { pwrite(fd, bytes.baseAddress, bytes.count, offset) }
}

/// Never retried (see the EINTR policy above).
package func sys_close(_ fd: CInt) -> Result<CInt, Errno> {
    valueOrErrno { close(fd) }
}

/// nanosleep(2) for `milliseconds`, resumed with the time left when a signal interrupts it: a
/// pause where no descriptor can be waited on.
package func sys_sleep(milliseconds: Int) {
    LoopGuard.offLoop("nanosleep")
    var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
}

/// poll(2), retried on EINTR with the remaining part of `timeoutMilliseconds` (see the EINTR
/// policy above); a negative timeout waits for ever.
package func sys_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: CInt) -> Result<
    CInt, Errno
> {
    if timeoutMilliseconds != 0 { LoopGuard.offLoop("poll with a timeout") }
    guard timeoutMilliseconds > 0 else { return retryingOnEINTR { poll(fds, nfds_t(count), timeoutMilliseconds) } }
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(timeoutMilliseconds)
    var remaining = timeoutMilliseconds
    while true {
        let result = valueOrErrno { poll(fds, nfds_t(count), remaining) }
        guard case .failure(.interrupted) = result else { return result }
        let (seconds, attoseconds) = clock.now.duration(to: deadline).components
        // Round up, so a wait never ends a fraction of a millisecond early and spins.
        let left = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        remaining = CInt(clamping: max(0, left))
    }
}

/// pipe2(2), through the C shim.
package func sys_pipe2(_ flags: CInt) -> Result<(read: CInt, write: CInt), Errno> {
    var ends: (CInt, CInt) = (-1, -1)
    return withUnsafeMutableBytes(of: &ends) { raw in
        retryingOnEINTR { CNetRulesLinux_pipe2(raw.baseAddress!.assumingMemoryBound(to: CInt.self), flags) }
    }.map { _ in (ends.0, ends.1) }
}

/// eventfd(2).
package func sys_eventfd(_ initial: CUnsignedInt, _ flags: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { eventfd(initial, flags) }
}

/// Sets `O_NONBLOCK` with fcntl(2) (`F_GETFL`, then `F_SETFL`).
package func sys_setNonBlocking(_ fd: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { fcntl(fd, F_GETFL) }.flatMap { flags in
        retryingOnEINTR { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }
}

/// ioctl(2) with `TIOCGWINSZ` (ioctl_tty(2)): the window size of the terminal on `fd`; `ENOTTY`
/// when it is not a terminal.
package func sys_ioctl_TIOCGWINSZ(_ fd: CInt) -> Result<winsize, Errno> {
    var size = winsize()
    return retryingOnEINTR { ioctl(fd, UInt(TIOCGWINSZ), &size) }.map { _ in size }
}

/// The file descriptor of standard output. The corresponding C constant is `STDOUT_FILENO`.
package let standardOutputFileDescriptor: CInt = STDOUT_FILENO

/// The file descriptor of standard error. The corresponding C constant is `STDERR_FILENO`.
package let standardErrorFileDescriptor: CInt = STDERR_FILENO

// MARK: Sockets

/// socket(2).
package func sys_socket(_ domain: CInt, _ type: CInt, _ proto: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { socket(domain, type, proto) }
}

/// bind(2).
package func sys_bind(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<CInt, Errno> {
    retryingOnEINTR { bind(fd, address, length) }
}

/// listen(2).
package func sys_listen(_ fd: CInt, _ backlog: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { listen(fd, backlog) }
}

/// accept4(2) without the peer's address. On a non-blocking socket `EAGAIN` means "no connection
/// pending", which callers treat as normal. The flags are set atomically, so an action spawned by
/// another thread never inherits the connection.
package func sys_accept4(_ fd: CInt, _ flags: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { CNetRulesLinux_accept4(fd, nil, nil, flags) }
}

/// Never retried (see the EINTR policy above).
package func sys_connect(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<CInt, Errno> {
    valueOrErrno { connect(fd, address, length) }
}

/// setsockopt(2) with `value`'s bytes as the option value.
package func sys_setsockopt<T>(_ fd: CInt, _ level: CInt, _ name: CInt, _ value: T) -> Result<CInt, Errno> {
    withUnsafeBytes(of: value) { bytes in
        retryingOnEINTR { setsockopt(fd, level, name, bytes.baseAddress, socklen_t(bytes.count)) }
    }
}

/// setsockopt(2) with `bytes` as the option value: a name, such as `SO_BINDTODEVICE`'s interface.
package func sys_setsockopt_bytes(_ fd: CInt, _ level: CInt, _ name: CInt, _ bytes: [UInt8]) -> Result<CInt, Errno> {
    bytes.withUnsafeBytes { bytes in
        retryingOnEINTR { setsockopt(fd, level, name, bytes.baseAddress, socklen_t(bytes.count)) }
    }
}

/// getsockopt(2) for an `int` option.
package func sys_getsockopt_int(_ fd: CInt, _ level: CInt, _ name: CInt) -> Result<CInt, Errno> {
    var value: CInt = 0
    var length = socklen_t(MemoryLayout<CInt>.size)
    return retryingOnEINTR { getsockopt(fd, level, name, &value, &length) }.map { _ in value }
}

/// The peer's process and user ids from its credentials (`SO_PEERCRED`, socket(7)), as the kernel
/// recorded them at connect time.
///
/// `struct ucred` is `_GNU_SOURCE`-only, so Swift's Glibc lacks it; its layout is fixed by the
/// kernel ABI as three 32-bit fields: pid, uid, gid.
package func sys_getsockopt_peercred(_ fd: CInt) -> Result<(pid: pid_t, uid: uid_t), Errno> {
    var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
    let result = retryingOnEINTR { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) }
    return result.map { _ in (credentials.0, credentials.1) }
}

/// getsockname(2).
package func sys_getsockname(_ fd: CInt, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t)
    -> Result<CInt, Errno>
{
    retryingOnEINTR { getsockname(fd, address, &length) }
}

/// send(2).
package func sys_send(_ fd: CInt, _ bytes: UnsafeRawBufferPointer, _ flags: CInt) -> Result<Int, Errno> {
    retryingOnEINTR { send(fd, bytes.baseAddress, bytes.count, flags) }
}

/// sendto(2).
package func sys_sendto(
    _ fd: CInt, _ bytes: UnsafeRawBufferPointer, _ flags: CInt, _ address: UnsafePointer<sockaddr>,
    _ addressLength: socklen_t
) -> Result<Int, Errno> {
    retryingOnEINTR { sendto(fd, bytes.baseAddress, bytes.count, flags, address, addressLength) }
}

/// recvfrom(2).
package func sys_recvfrom(
    _ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer, _ address: UnsafeMutablePointer<sockaddr>,
    _ length: inout socklen_t
) -> Result<Int, Errno> {
    retryingOnEINTR { recvfrom(fd, buffer.baseAddress, buffer.count, 0, address, &length) }
}

/// recvmsg(2).
package func sys_recvmsg(_ fd: CInt, _ message: UnsafeMutablePointer<msghdr>, _ flags: CInt) -> Result<Int, Errno> {
    retryingOnEINTR { recvmsg(fd, message, flags) }
}

// MARK: Files

/// open(2).
package func sys_open(_ path: String, _ flags: CInt, _ mode: mode_t = 0) -> Result<CInt, Errno> {
    retryingOnEINTR { open(path, flags, mode) }
}

/// openat(2).
package func sys_openat(_ directory: CInt, _ path: String, _ flags: CInt, _ mode: mode_t = 0) -> Result<CInt, Errno> {
    retryingOnEINTR { openat(directory, path, flags, mode) }
}

/// fstatat(2), returning the `stat`; with `AT_SYMLINK_NOFOLLOW` a symbolic link's own.
package func sys_fstatat(_ directory: CInt, _ path: String, _ flags: CInt) -> Result<stat, Errno> {
    LoopGuard.offLoop("fstatat")
    var info = stat()
    return retryingOnEINTR { fstatat(directory, path, &info, flags) }.map { _ in info }
}

/// mkdirat(2).
package func sys_mkdirat(_ directory: CInt, _ path: String, _ mode: mode_t) -> Result<CInt, Errno> {
    retryingOnEINTR { mkdirat(directory, path, mode) }
}

/// renameat(2).
package func sys_renameat(_ oldDirectory: CInt, _ old: String, _ newDirectory: CInt, _ new: String) -> Result<
    CInt, Errno
> {
    retryingOnEINTR { renameat(oldDirectory, old, newDirectory, new) }
}

/// unlinkat(2).
package func sys_unlinkat(_ directory: CInt, _ path: String, _ flags: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { unlinkat(directory, path, flags) }
}

/// readlinkat(2): the target of the symbolic link `path`, its bytes as UTF-8 (a target that is
/// not is kept with U+FFFD, and then names nothing that exists).
package func sys_readlinkat(_ directory: CInt, _ path: String) -> Result<String, Errno> {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    return retryingOnEINTR { readlinkat(directory, path, &buffer, buffer.count - 1) }.map { length in
        String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// fchown(2).
package func sys_fchown(_ fd: CInt, _ owner: uid_t, _ group: gid_t) -> Result<CInt, Errno> {
    retryingOnEINTR { fchown(fd, owner, group) }
}

/// flock(2); with `LOCK_NB` a held lock is `EWOULDBLOCK`, without it EINTR is retried like any wait.
package func sys_flock(_ fd: CInt, _ operation: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { flock(fd, operation) }
}

/// fsync(2).
package func sys_fsync(_ fd: CInt) -> Result<CInt, Errno> {
    LoopGuard.offLoop("fsync")
    return retryingOnEINTR { fsync(fd) }
}

/// Flushes the file's data (and the metadata needed to read it back) to the disk, fdatasync(2).
package func sys_fdatasync(_ fd: CInt) -> Result<CInt, Errno> {
    LoopGuard.offLoop("fdatasync")
    return retryingOnEINTR { fdatasync(fd) }
}

/// ftruncate(2).
package func sys_ftruncate(_ fd: CInt, _ length: off_t) -> Result<CInt, Errno> {
    retryingOnEINTR { ftruncate(fd, length) }
}

/// rename(2).
package func sys_rename(_ old: String, _ new: String) -> Result<CInt, Errno> {
    retryingOnEINTR { rename(old, new) }
}

/// unlink(2).
package func sys_unlink(_ path: String) -> Result<CInt, Errno> {
    retryingOnEINTR { unlink(path) }
}

/// rmdir(2).
package func sys_rmdir(_ path: String) -> Result<CInt, Errno> {
    retryingOnEINTR { rmdir(path) }
}

/// mkdir(2).
package func sys_mkdir(_ path: String, _ mode: mode_t) -> Result<CInt, Errno> {
    retryingOnEINTR { mkdir(path, mode) }
}

/// chmod(2).
package func sys_chmod(_ path: String, _ mode: mode_t) -> Result<CInt, Errno> {
    retryingOnEINTR { chmod(path, mode) }
}

/// fchmod(2).
package func sys_fchmod(_ fd: CInt, _ mode: mode_t) -> Result<CInt, Errno> {
    retryingOnEINTR { fchmod(fd, mode) }
}

/// access(2).
package func sys_access(_ path: String, _ mode: CInt) -> Result<CInt, Errno> {
    LoopGuard.offLoop("access")
    return retryingOnEINTR { access(path, mode) }
}

/// stat(2), returning the `stat`.
package func sys_stat(_ path: String) -> Result<stat, Errno> {
    LoopGuard.offLoop("stat")
    var info = stat()
    return retryingOnEINTR { stat(path, &info) }.map { _ in info }
}

/// lstat(2), returning the `stat`.
package func sys_lstat(_ path: String) -> Result<stat, Errno> {
    LoopGuard.offLoop("lstat")
    var info = stat()
    return retryingOnEINTR { lstat(path, &info) }.map { _ in info }
}

/// fstat(2), returning the `stat`.
package func sys_fstat(_ fd: CInt) -> Result<stat, Errno> {
    var info = stat()
    return retryingOnEINTR { fstat(fd, &info) }.map { _ in info }
}

/// realpath(3): the canonical absolute path, every symbolic link resolved.
package func sys_realpath(_ path: String) -> Result<String, Errno> {
    LoopGuard.offLoop("realpath")
    guard let resolved = realpath(path, nil) else { return .failure(.current) }
    defer { free(resolved) }
    return .success(String(cString: resolved))
}

/// The working directory (getcwd(3)), for making a relative path absolute.
package func sys_getcwd() -> Result<String, Errno> {
    guard let directory = getcwd(nil, 0) else { return .failure(.current) }
    defer { free(directory) }
    return .success(String(cString: directory))
}

/// The names in a directory, without `.` and `..`. readdir(3) reports errors only through errno,
/// so errno is cleared before each call.
package func sys_listDirectory(_ path: String) -> Result<[String], Errno> {
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

// MARK: inotify

/// inotify_init1(2).
package func sys_inotify_init1(_ flags: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { inotify_init1(flags) }
}

/// inotify_add_watch(2).
package func sys_inotify_add_watch(_ fd: CInt, _ path: String, _ mask: UInt32) -> Result<CInt, Errno> {
    retryingOnEINTR { inotify_add_watch(fd, path, mask) }
}

// MARK: Processes

/// kill(2).
package func sys_kill(_ pid: pid_t, _ signal: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { kill(pid, signal) }
}

/// waitpid(2).
package func sys_waitpid(_ pid: pid_t, _ status: inout CInt, _ options: CInt) -> Result<pid_t, Errno> {
    if options & WNOHANG == 0 { LoopGuard.offLoop("waitpid without WNOHANG") }
    return retryingOnEINTR { waitpid(pid, &status, options) }
}

/// pidfd_open(2): a pollable descriptor that becomes readable when `pid` exits.
package func sys_pidfd_open(_ pid: pid_t) -> Result<CInt, Errno> {
    retryingOnEINTR { CNetRulesLinux_pidfd_open(pid, 0) }
}

/// posix_spawn(3) reports its error as the return value rather than in errno.
package func sys_posix_spawn(
    _ path: String, _ fileActions: UnsafePointer<posix_spawn_file_actions_t>,
    _ attributes: UnsafePointer<posix_spawnattr_t>, _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>,
    _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>
) -> Result<pid_t, Errno> {
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, fileActions, attributes, argv, envp)
    return result == 0 ? .success(pid) : .failure(Errno(rawValue: result))
}

/// `CNetRulesLinux_spawn` (shim.c): clone, change credentials (for an action run as another
/// user) or set a death signal (for a plugin that must die with the daemon), exec; the step that
/// failed is named in the error's call (`setuid`, `chdir`, `prctl`, `execve`). It returns its
/// error instead of setting errno.
package func sys_spawn(
    _ path: String, _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>,
    _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>, standardInput: CInt, standardOutput: CInt,
    standardError: CInt, workingDirectory: String?, credentials: (uid: uid_t, gid: gid_t, groups: [gid_t])?,
    deathSignal: CInt
) -> Result<pid_t, SystemCallError> {
    var pid: pid_t = 0
    var step: CInt = 0
    let result = (credentials?.groups ?? []).withUnsafeBufferPointer { groupList in
        func spawn(_ directory: UnsafePointer<CChar>?) -> CInt {
            CNetRulesLinux_spawn(
                path, UnsafeRawPointer(argv).assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self),
                UnsafeRawPointer(envp).assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self), standardInput,
                standardOutput, standardError, directory, credentials == nil ? 0 : 1, credentials?.uid ?? 0,
                credentials?.gid ?? 0, groupList.baseAddress, CInt(groupList.count), deathSignal, &pid, &step)
        }
        return workingDirectory.map { $0.withCString(spawn) } ?? spawn(nil)
    }
    guard result != 0 else { return .success(pid) }
    let call =
        switch step {
        case CNetRulesLinux_spawn_step_setpgid: "setpgid"
        case CNetRulesLinux_spawn_step_dup2: "dup2"
        case CNetRulesLinux_spawn_step_setgroups: "setgroups"
        case CNetRulesLinux_spawn_step_setgid: "setresgid"
        case CNetRulesLinux_spawn_step_setuid: "setresuid"
        case CNetRulesLinux_spawn_step_chdir: "chdir"
        case CNetRulesLinux_spawn_step_exec: "execve"
        case CNetRulesLinux_spawn_step_death_signal: "prctl"
        default: "fork"
        }
    return .failure(SystemCallError(call: call, errno: Errno(rawValue: result)))
}

/// getpwnam_r(3) or, with `uid`, getpwuid_r(3): the account's uid, gid, home, login shell and
/// name; nil when there is no such account. The package's one password-database lookup: what a
/// caller does with a failure (an error, or a uid named by its number) is its own to say.
package func sys_getpw(name: String? = nil, uid: uid_t = 0) -> Result<
    (name: String, uid: uid_t, gid: gid_t, home: String, shell: String)?, Errno
> {
    LoopGuard.offLoop("getpwnam_r/getpwuid_r")
    return entryLookUp(passwd()) { entry, buffer, size, found in
        guard let name else { return getpwuid_r(uid, entry, buffer, size, found) }
        return getpwnam_r(name, entry, buffer, size, found)
    } read: { entry in
        (
            name: String(cString: entry.pw_name), uid: entry.pw_uid, gid: entry.pw_gid,
            home: String(cString: entry.pw_dir), shell: entry.pw_shell.map { String(cString: $0) } ?? ""
        )
    }
}

/// getgrnam_r(3) or, with `gid`, getgrgid_r(3): the group's name and id; nil when there is no
/// such group. The package's one group-database lookup, as `sys_getpw` is for accounts.
package func sys_getgr(name: String? = nil, gid: gid_t = 0) -> Result<(name: String, gid: gid_t)?, Errno> {
    LoopGuard.offLoop("getgrnam_r/getgrgid_r")
    return entryLookUp(group()) { entry, buffer, size, found in
        guard let name else { return getgrgid_r(gid, entry, buffer, size, found) }
        return getgrnam_r(name, entry, buffer, size, found)
    } read: { entry in
        (name: entry.gr_name.map { String(cString: $0) } ?? String(entry.gr_gid), gid: entry.gr_gid)
    }
}

/// A reentrant user or group database call (getpwnam_r(3) and its kin): the entry to fill, the
/// buffer for its strings and that buffer's size, and where it stores the entry it found.
private typealias EntryCall<Entry> = (
    UnsafeMutablePointer<Entry>, UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>
) -> CInt

/// The loop the reentrant user and group database calls share: `call` with a buffer that grows
/// on ERANGE (up to 1 MiB), again on EINTR. They return their error instead of setting errno.
private func entryLookUp<Entry, Value>(
    _ empty: Entry, _ call: EntryCall<Entry>, read: (Entry) -> Value
) -> Result<Value?, Errno> {
    var size = 1024
    while true {
        var entry = empty
        var found: UnsafeMutablePointer<Entry>?
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        defer { buffer.deallocate() }
        let result = call(&entry, buffer, size, &found)
        if result == ERANGE && size < 1 << 20 {
            size *= 4
            continue
        }
        if result == EINTR { continue }
        // 0 with no entry, or ENOENT/ESRCH/EBADF/EPERM from some NSS modules: no such entry.
        guard let found else {
            return [0, ENOENT, ESRCH, EBADF, EPERM].contains(result) ? .success(nil) : .failure(Errno(rawValue: result))
        }
        return .success(read(found.pointee))
    }
}

/// getgrouplist(3): the groups `user` belongs to, `gid` among them (initgroups(3)'s list).
package func sys_getgrouplist(_ user: String, _ gid: gid_t) -> [gid_t] {
    LoopGuard.offLoop("getgrouplist")
    var count: CInt = 32
    while true {
        var groups = [gid_t](repeating: 0, count: Int(count))
        let wanted = count
        // -1 means the list did not fit; `count` then holds the size needed.
        if getgrouplist(user, gid, &groups, &count) >= 0 { return Array(groups.prefix(Int(count))) }
        if count <= wanted { count = wanted * 2 }
    }
}

/// posix_spawn_file_actions_addchdir_np(3): `cwd:` without an intermediate shell. It returns its
/// error instead of setting errno.
package func sys_posix_spawn_file_actions_addchdir_np(
    _ fileActions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String
) -> Result<CInt, Errno> {
    let result = CNetRulesLinux_posix_spawn_file_actions_addchdir_np(fileActions, path)
    return result == 0 ? .success(0) : .failure(Errno(rawValue: result))
}

/// posix_spawn_file_actions_addclosefrom_np(3): closes in the child every descriptor from `lowest`
/// on, including those some library opened without close-on-exec. It returns its error instead of
/// setting errno.
package func sys_posix_spawn_file_actions_addclosefrom_np(
    _ fileActions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: CInt
) -> Result<CInt, Errno> {
    let result = CNetRulesLinux_posix_spawn_file_actions_addclosefrom_np(fileActions, lowest)
    return result == 0 ? .success(0) : .failure(Errno(rawValue: result))
}

/// sigdescr_np(3): what `strsignal(3)` says in the C locale, without its static buffer, so it is
/// safe from any thread; nil for a signal it does not know.
package func sys_sigdescr_np(_ signal: CInt) -> String? {
    CNetRulesLinux_sigdescr_np(signal).map { String(cString: $0) }
}

/// setns(2), through the C shim.
package func sys_setns(_ fd: CInt, _ type: CInt) -> Result<CInt, Errno> {
    retryingOnEINTR { CNetRulesLinux_setns(fd, type) }
}

/// The effective user id, geteuid(2); it cannot fail.
package func sys_geteuid() -> uid_t {
    geteuid()
}

/// The real user id, getuid(2); it cannot fail.
package func sys_getuid() -> uid_t {
    getuid()
}

// MARK: Threads, signals and clocks

/// pthread_create(3) with its attributes; it returns its error instead of setting `errno`.
package func sys_pthread_create(
    _ thread: UnsafeMutablePointer<pthread_t>,
    _ attributes: UnsafePointer<pthread_attr_t>,
    _ start: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
    _ context: UnsafeMutableRawPointer
) -> Result<CInt, Errno> {
    let result = pthread_create(thread, attributes, start, context)
    return result == 0 ? .success(0) : .failure(Errno(rawValue: result))
}

/// Names the calling thread (`prctl(PR_SET_NAME)`, prctl(2)), as `ps -L` and `top -H` show it.
///
/// The kernel keeps 15 bytes; longer names are cut to 15 characters first. It cannot fail for the
/// calling thread.
package func sys_set_thread_name(_ name: String) {
    String(name.prefix(15)).withCString { CNetRulesLinux_set_thread_name($0) }
}

/// The calling thread's kernel id (gettid(2)); it cannot fail.
package func sys_gettid() -> pid_t {
    CNetRulesLinux_gettid()
}

/// sigaction(2).
package func sys_sigaction(
    _ signal: CInt, _ action: UnsafePointer<sigaction>?, _ previous: UnsafeMutablePointer<sigaction>?
) -> Result<CInt, Errno> {
    retryingOnEINTR { sigaction(signal, action, previous) }
}

/// clock_gettime(2) for `clock` (`CLOCK_MONOTONIC`, `CLOCK_REALTIME`); it cannot fail with a valid
/// pointer and clock id.
package func sys_clock_gettime(_ clock: clockid_t) -> timespec {
    var now = timespec()
    _ = clock_gettime(clock, &now)
    return now
}

/// CLOCK_MONOTONIC in microseconds, the clock systemd compares `MONOTONIC_USEC` with.
package func sys_monotonicMicroseconds() -> UInt64 {
    let now = sys_clock_gettime(CLOCK_MONOTONIC)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}

/// How many times the calling thread gave up the CPU to wait (voluntary context switches:
/// blocking I/O, a sleep, a contended lock), from getrusage(2) with `RUSAGE_THREAD`.
package func sys_threadVoluntarySwitches() -> Int {
    CNetRulesLinux_thread_voluntary_switches()
}

/// CLOCK_REALTIME in nanoseconds since the Unix epoch.
package func sys_realtimeNanoseconds() -> Int64 {
    let now = sys_clock_gettime(CLOCK_REALTIME)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

// MARK: Name resolution

/// Why getaddrinfo(3) failed, in gai_strerror(3)'s words (its codes are not errnos).
package struct AddressLookupFailure: Error {
    package let message: String
}

/// getifaddrs(3): calls `body` with the list of the interfaces' addresses, freed afterwards;
/// nil when it failed.
package func sys_getifaddrs<T>(_ body: (UnsafePointer<ifaddrs>?) -> T) -> T? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return nil }
    defer { freeifaddrs(list) }
    return body(list)
}

/// getaddrinfo(3) for `name`, IPv4 and IPv6 with one entry per address (`SOCK_STREAM` hints), in
/// the resolver's preference order (RFC 6724). `body` sees the list before freeaddrinfo(3) frees it.
/// It blocks and cannot be interrupted, so callers run it on a thread they can abandon.
package func sys_getaddrinfo<T>(_ name: String, _ body: (UnsafePointer<addrinfo>?) -> T) -> Result<
    T, AddressLookupFailure
> {
    LoopGuard.offLoop("getaddrinfo")
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(name, nil, &hints, &list)
    guard status == 0 else { return .failure(AddressLookupFailure(message: String(cString: gai_strerror(status)))) }
    defer { freeaddrinfo(list) }
    return .success(body(list))
}
