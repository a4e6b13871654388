import Foundation
@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting

/// One `netrules run` process started with `ip netns exec`, which joins the namespace and then
/// execs the daemon in place, so ``pid`` is the daemon's own process id.
///
/// Its standard output and error are appended to a log file (restarts append to the same one).
/// Invariant for `@unchecked Sendable`: `pid` is immutable and the reaped status is behind a mutex.
final class DaemonProcess: Sendable {
    /// How a reaped process ended (`BackgroundProcess.Termination`, named here so the tests need
    /// not import NetRulesSystem).
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

    private let process: BackgroundProcess
    var pid: pid_t { process.pid }

    /// The built `netrules` executable: `.build/debug/netrules` beside this package's sources.
    static let executable: String = {
        let root = #filePath.split(separator: "/").dropLast(4).joined(separator: "/")
        return "/\(root)/.build/debug/netrules"
    }()

    /// Starts `netrules ARGUMENTS…` inside `namespace` with exactly `environment`.
    init(
        namespace: String, arguments: [String], environment: [String: String], log: String, launcher: [String] = []
    ) throws {
        guard access(Self.executable, X_OK) == 0 else {
            throw TestError("\(Self.executable) is missing: run `swift build --build-tests` first")
        }
        let candidates: [String] = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        guard let ip = candidates.first(where: { access($0, X_OK) == 0 }) else {
            throw TestError("iproute2's ip is not installed")
        }
        let argv = [ip, "netns", "exec", namespace] + launcher + [Self.executable] + arguments
        // Its own process group, so a ^C at the test's terminal reaches only the test; default
        // signal handling and an empty mask, because the daemon must see SIGHUP/SIGTERM whatever
        // the test runner blocks.
        process = try BackgroundProcess(
            argv, environment: environment.map { "\($0.key)=\($0.value)" }, log: log, logMode: 0o644)
    }

    /// Sends `signal` to the daemon (not its group: actions and plugins have groups of their own).
    func send(_ signal: Int32) { process.send(signal) }

    /// How the process ended, once it has; reaps it when it just did.
    var termination: Termination? {
        switch process.termination {
        case nil: nil
        case .exited(let code): .exited(code)
        case .signaled(let signal): .signaled(signal)
        }
    }

    /// Waits for the process to end, failing after `timeout`.
    func waitForExit(timeout: Duration = .seconds(15)) async throws -> Termination {
        try await eventually("netrules (pid \(pid)) to exit", timeout: timeout) { termination != nil }
        return termination!
    }

    /// SIGKILL and reap, for clean-up after a failure; harmless when it already ended.
    func killAndReap() { process.kill() }

    /// Resident memory in kilobytes, from `VmRSS` in /proc/PID/status.
    func residentKilobytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw TestError("no VmRSS for pid \(pid)") }
        return kilobytes
    }
}
