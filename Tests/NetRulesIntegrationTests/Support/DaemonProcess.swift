import Foundation
@preconcurrency import Glibc
import NetRulesTesting
import Synchronization

/// One `netrules run` process started with `ip netns exec`, which joins the namespace and then
/// execs the daemon in place, so ``pid`` is the daemon's own process id.
///
/// Its standard output and error are appended to a log file (restarts append to the same one).
/// Invariant for `@unchecked Sendable`: `pid` is immutable and the reaped status is behind a mutex.
final class DaemonProcess: @unchecked Sendable {
    /// How a reaped process ended.
    enum Termination: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exited with \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }
    }

    let pid: pid_t
    private let reaped = Mutex<Termination?>(nil)

    /// The built `netrules` executable: `.build/debug/netrules` beside this package's sources.
    static let executable: String = {
        let root = #filePath.split(separator: "/").dropLast(4).joined(separator: "/")
        return "/\(root)/.build/debug/netrules"
    }()

    /// Starts `netrules ARGUMENTS…` inside `namespace` with exactly `environment`.
    init(namespace: String, arguments: [String], environment: [String: String], log: String) throws {
        guard access(Self.executable, X_OK) == 0 else {
            throw TestError("\(Self.executable) is missing: run `swift build --build-tests` first")
        }
        let candidates: [String] = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        guard let ip = candidates.first(where: { access($0, X_OK) == 0 }) else {
            throw TestError("iproute2's ip is not installed")
        }
        let argv = [ip, "netns", "exec", namespace, Self.executable] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so a ^C at the test's terminal reaches only the test; default
        // signal handling and an empty mask, because the daemon must see SIGHUP/SIGTERM whatever
        // the test runner blocks.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGTERM, SIGINT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var child: pid_t = 0
        let status = withCStrings(argv) { cArgv in
            withCStrings(envp) { cEnvp in posix_spawn(&child, ip, &actions, &attributes, cArgv, cEnvp) }
        }
        guard status == 0 else { throw TestError("posix_spawn \(ip): errno \(status)") }
        pid = child
    }

    /// Sends `signal` to the daemon (not its group: actions and plugins have groups of their own).
    func send(_ signal: Int32) {
        if termination == nil { kill(pid, signal) }
    }

    /// How the process ended, once it has; reaps it when it just did.
    var termination: Termination? {
        reaped.withLock { reaped in
            if reaped == nil {
                var status: CInt = 0
                if waitpid(pid, &status, WNOHANG) == pid { reaped = Self.decode(status) }
            }
            return reaped
        }
    }

    /// Waits for the process to end, failing after `timeout`.
    func waitForExit(timeout: Duration = .seconds(15)) async throws -> Termination {
        try await eventually("netrules (pid \(pid)) to exit", timeout: timeout) { termination != nil }
        return termination!
    }

    /// SIGKILL and reap, for clean-up after a failure; harmless when it already ended.
    func killAndReap() {
        guard termination == nil else { return }
        kill(pid, SIGKILL)
        reaped.withLock { reaped in
            var status: CInt = 0
            if waitpid(pid, &status, 0) == pid { reaped = Self.decode(status) }
        }
    }

    /// Resident memory in kilobytes, from `VmRSS` in /proc/PID/status.
    func residentKilobytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw TestError("no VmRSS for pid \(pid)") }
        return kilobytes
    }

    // WIFEXITED and friends are macros Swift does not import; this is their glibc layout.
    private static func decode(_ status: CInt) -> Termination {
        status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
    }
}

/// Calls `body` with a NULL-terminated C array of the strings, valid only during the call.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
