internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesSystem

/// Runs blocking work on a dedicated OS thread, so a reader blocked in `poll` never parks a thread
/// of Swift's cooperative pool (STYLE §16).
enum BlockingThread {
    /// Runs `body` on a new thread and returns its result.
    ///
    /// The thread is detached; `body` must return on its own (readers watch a `WakeEvent`).
    /// When `namespacePath` is set, the thread first joins that network namespace: `setns` with
    /// `CLONE_NEWNET` affects only the calling thread, so the rest of the process stays where it was.
    static func run<R: Sendable>(
        name: String,
        namespacePath: String? = nil,
        _ body: @escaping @Sendable () throws -> R
    ) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let work: @Sendable () -> Void = {
                do {
                    if let namespacePath { try joinNetworkNamespace(namespacePath) }
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            do {
                // The system's default stack, as these threads always had: nobody has measured how deep
                // the observer loops go, so DedicatedThread's compact stack is not assumed to be enough.
                try DedicatedThread.spawn {
                    String(name.prefix(15)).withCString { CNetRulesLinux_set_thread_name($0) }
                    work()
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Moves the calling thread into the network namespace at `path` (e.g. `/run/netns/NAME`).
    static func joinNetworkNamespace(_ path: String) throws {
        let fd = try sys_open(path, O_RDONLY | O_CLOEXEC).get(call: "open")
        defer { _ = sys_close(fd) }
        _ = try sys_setns(fd, CInt(CLONE_NEWNET)).get(call: "setns")
    }
}
