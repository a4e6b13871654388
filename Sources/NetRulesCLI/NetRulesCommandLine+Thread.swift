package import NetRulesSystem
import Synchronization

extension NetRulesCommandLine {
    /// Runs the command line as the `netrules` executable does, with every task on the calling
    /// thread, and returns the exit code once the command has finished.
    ///
    /// The calling thread becomes the `ThreadExecutor` handed to the command line, whose every
    /// task, timer and wait runs there, so the daemon never starts libdispatch's worker pool and
    /// its 1 s timer: an idle `netrules run` sleeps until something happens (design note 0009).
    /// Blocking work runs on threads of its own. In-process callers (the tests) call
    /// `run(arguments:stdout:stderr:environment:loop:)` with a loop of their own.
    package static func runOnCurrentThread(
        arguments: [String], stdout: any TextOutputSink, stderr: any TextOutputSink, environment: [String: String]
    ) -> Int32 {
        runOnCurrentThread(stderr: stderr) { loop in
            await run(arguments: arguments, stdout: stdout, stderr: stderr, environment: environment, loop: loop)
        }
    }

    /// Runs `body` with the calling thread as its event loop, as above, and returns its exit code
    /// once it has finished (`netrules-bench` runs its command line so).
    package static func runOnCurrentThread(
        stderr: any TextOutputSink, _ body: @escaping @Sendable (ThreadExecutor) async -> Int32
    ) -> Int32 {
        let executor: ThreadExecutor
        do {
            executor = try ThreadExecutor()
        } catch {
            stderr.write("netrules: cannot start: \(error)\n")
            return ExitCode.failure
        }
        let exitCode = ExitCodeBox()
        Task(executorPreference: executor) {
            let code = await body(executor)
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
