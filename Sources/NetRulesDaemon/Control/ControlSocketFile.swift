@preconcurrency import Glibc
import NetRulesSystem

/// The control socket's file: its directory, a stale file left by a daemon that died, binding with
/// mode 0600, and removal at shutdown.
enum ControlSocketFile {
    /// The device and inode of the socket this process bound, so shutdown removes only its own file.
    struct Identity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    /// Creates, binds and starts listening on the socket at `path`.
    /// - Throws: `ControlSocketError` (`.anotherDaemon`, `.invalidPath`) or a `SystemCallError`.
    static func listen(at path: String, backlog: CInt) throws -> (FileDescriptor, Identity) {
        try createDirectory(parentOf: path)
        try removeStale(at: path)
        let fd = try sys_socket(
            AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0
        ).get(call: "socket")
        let descriptor = FileDescriptor(taking: fd)
        do {
            try FileDescriptor.withAddress(path) { address, length in
                switch sys_bind(fd, address, length) {
                case .success: return
                case .failure(let e) where e.rawValue == EADDRINUSE:
                    // Lost a race with another daemon starting at the same moment.
                    throw anotherDaemon(path)
                case .failure(let e): throw SystemCallError(call: "bind", errno: e)
                }
            }
            // Nobody can connect before listen(), so tightening the mode here leaves no window,
            // and unlike umask it does not change the mode of files other threads create meanwhile.
            _ = try sys_chmod(path, 0o600).get(call: "chmod")
            let info = try sys_lstat(path).get(call: "lstat")
            _ = try sys_listen(fd, backlog).get(call: "listen")
            return (descriptor, Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
        } catch let error as ControlSocketError where error.code == .anotherDaemon {
            descriptor.closeDiscardingError()
            throw error
        } catch {
            descriptor.closeDiscardingError()
            _ = sys_unlink(path)
            throw error
        }
    }

    /// Removes the socket file if it is still the one this process bound.
    static func remove(_ path: String, ifStill identity: Identity) {
        guard case .success(let info) = sys_lstat(path),
            Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) == identity
        else { return }
        _ = sys_unlink(path)
    }

    /// Creates missing directories above the socket: `/run/netrules` world-readable (0755) like
    /// other daemons' runtime directories, any other 0700 because only its owner needs it. Each is
    /// made by `AtomicFile.makeDirectories`, with that exact mode.
    static func createDirectory(parentOf path: String) throws(SystemCallError) {
        guard let slash = path.lastIndex(of: "/") else { return }
        let parent = String(path[..<slash])
        let runtime = "/run/netrules"
        if parent == runtime || parent.hasPrefix(runtime + "/") {
            try AtomicFile.makeDirectories(runtime, mode: 0o755)
        }
        try AtomicFile.makeDirectories(parent, mode: 0o700)
    }

    /// Removes a socket file nobody answers on; refuses to touch a live socket or a non-socket.
    static func removeStale(at path: String) throws {
        let info: stat
        switch sys_lstat(path) {
        case .success(let i): info = i
        case .failure(let e) where e.rawValue == ENOENT: return
        case .failure(let e): throw SystemCallError(call: "lstat", errno: e)
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ControlSocketError(.invalidPath, "'\(path)' exists and is not a socket; not replacing it")
        }
        let probe = try sys_socket(
            AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0
        ).get(call: "socket")
        let descriptor = FileDescriptor(taking: probe)
        defer { descriptor.closeDiscardingError() }
        let result = try FileDescriptor.withAddress(path) { sys_connect(probe, $0, $1) }
        switch result {
        case .success:
            // The peer's pid only adds a detail to the message; without SO_PEERCRED it names no pid.
            throw anotherDaemon(path, pid: try? sys_getsockopt_peercred(probe).get().pid)
        case .failure(let e) where e.rawValue == EAGAIN || e.rawValue == EINPROGRESS:
            // A full backlog: someone is listening.
            throw anotherDaemon(path)
        case .failure(let e) where e.rawValue == ECONNREFUSED:
            _ = sys_unlink(path)
        case .failure(let e) where e.rawValue == ENOENT:
            return
        case .failure(let e):
            throw ControlSocketError(
                .permissionDenied, "cannot check the existing control socket \(path)",
                cause: SystemCallError(call: "connect", errno: e))
        }
    }

    static func anotherDaemon(_ path: String, pid: pid_t? = nil) -> ControlSocketError {
        let holder = pid.map { " (PID \($0))" } ?? ""
        return ControlSocketError(
            .anotherDaemon,
            "another netrules daemon\(holder) is answering on the control socket \(path); stop it first, or give "
                + "this daemon its own --socket")
    }
}
