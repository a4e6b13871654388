internal import NetRulesSystem
import Synchronization

extension NetRulesCommandLine {
    /// Runs the command line as the `netrules` executable does, with every task on the calling
    /// thread, and returns the exit code once the command has finished.
    ///
    /// The calling thread becomes a `ThreadExecutor` that every task prefers (`TaskPlacement`), so
    /// the daemon never starts libdispatch's worker pool and its 1 s timer: an idle `netrules run`
    /// sleeps until something happens (design note 0009). Blocking work already runs on threads of
    /// its own. In-process callers (the tests) use `run(arguments:stdout:stderr:environment:)`,
    /// which keeps whatever executor they run on.
    package static func runOnCurrentThread(
        arguments: [String], stdout: any TextOutputSink, stderr: any TextOutputSink, environment: [String: String]
    ) -> Int32 {
        runOnCurrentThread(stderr: stderr) {
            await run(arguments: arguments, stdout: stdout, stderr: stderr, environment: environment)
        }
    }

    /// Runs `body` with every task on the calling thread, as above, and returns its exit code once
    /// it has finished (`netrules-bench` runs its command line so).
    package static func runOnCurrentThread(
        stderr: any TextOutputSink, _ body: @escaping @Sendable () async -> Int32
    ) -> Int32 {
        let executor: ThreadExecutor
        do {
            executor = try ThreadExecutor()
        } catch {
            stderr.write("netrules: cannot start: \(error)\n")
            return ExitCode.failure
        }
        TaskPlacement.prefer(executor)
        let exitCode = ExitCodeBox()
        Task(executorPreference: executor) {
            let code = await body()
            exitCode.value.store(code, ordering: .releasing)
            executor.stop()
        }
        executor.run()
        return exitCode.value.load(ordering: .acquiring)
    }
}

/// Carries the command's exit code from its task to the thread that returns it.
private final class ExitCodeBox: Sendable {
    let value = Atomic<Int32>(ExitCode.failure)
}
