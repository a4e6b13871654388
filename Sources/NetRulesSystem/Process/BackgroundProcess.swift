@preconcurrency import Glibc
import Synchronization

/// A long-running child that nobody reads from: a daemon under test or benchmark, a mock service.
///
/// Started like a `ChildProcess` (a process group of its own, an empty signal mask, default
/// dispositions), with standard input from /dev/null and standard output and error appended to a
/// log file. It is reaped when ``termination`` is asked after it ended, or by ``stop(grace:)``.
package final class BackgroundProcess: Sendable {
    /// How a reaped process ended: the same as an action's process.
    package typealias Termination = ChildProcessOutcome.Termination

    package let pid: pid_t
    /// Where its standard output and error go.
    package let log: String
    private let reaped = Mutex<Termination?>(nil)

    /// Starts `arguments[0]` (a path) with exactly `environment` (`NAME=value` entries).
    /// - Parameter logMode: the log file's permission bits when this creates it.
    /// - Throws: `SystemCallError` when posix_spawn fails (a missing executable, for one).
    package init(_ arguments: [String], environment: [String], log: String, logMode: mode_t = 0o600)
        throws(SystemCallError)
    {
        self.log = log
        let result = ChildProcess.withSpawnArguments(
            arguments.map { Array($0.utf8) }, environment.map { Array($0.utf8) }
        ) { fileActions, attributes, argv, envp in
            posix_spawn_file_actions_addopen(fileActions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(fileActions, 1, log, O_WRONLY | O_CREAT | O_APPEND, logMode)
            posix_spawn_file_actions_adddup2(fileActions, 1, 2)
            return sys_posix_spawn(arguments[0], fileActions, attributes, argv, envp)
        }
        pid = try result.get(call: "posix_spawn")
    }

    /// How the process ended, once it has (reaping it then); nil while it runs.
    package var termination: Termination? {
        reaped.withLock { reaped in
            if reaped == nil {
                var status: CInt = 0
                if case .success(pid) = sys_waitpid(pid, &status, WNOHANG) { reaped = Termination(waitStatus: status) }
            }
            return reaped
        }
    }

    /// Sends `signal` to the process (not its group), unless it was reaped.
    package func send(_ signal: CInt) {
        if termination == nil { _ = sys_kill(pid, signal) }
    }

    /// SIGTERM, up to `grace` for it to end, then SIGKILL to its whole group; reaps it either way.
    /// Returns at once when it already ended.
    package func stop(grace: Duration) {
        guard termination == nil else { return }
        _ = sys_kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        // Without a pidfd (ENOSYS, EMFILE) the else branch polls every 10 ms instead.
        if let pidfd = try? sys_pidfd_open(pid).get(call: "pidfd_open") {
            // Whether the child ended within the grace period is looked at next (termination), and
            // SIGKILL follows if not; a poll error only shortens the grace.
            _ = try? waitReadable(pidfd, wake: nil, deadline: deadline)
            _ = sys_close(pidfd)
        } else {
            // No pidfd (a kernel before 5.3): look every 10 ms.
            while termination == nil, ContinuousClock.now < deadline { usleep(10_000) }
        }
        if termination == nil { kill() }
    }

    /// SIGKILL to its whole group, then waits to reap it; harmless when it already ended.
    package func kill() {
        guard termination == nil else { return }
        _ = sys_kill(-pid, SIGKILL)
        reaped.withLock { reaped in
            var status: CInt = 0
            if reaped == nil, case .success(pid) = sys_waitpid(pid, &status, 0) {
                reaped = Termination(waitStatus: status)
            }
        }
    }
}
