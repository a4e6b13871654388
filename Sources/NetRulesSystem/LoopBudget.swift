@preconcurrency import Glibc

/// The debug check that nothing blocks the daemon's loop (STYLE §16): with
/// `NETRULES_LOOP_BUDGET_MS=N` in the environment, every job, idle work item and descriptor
/// handler the `ThreadExecutor` runs is timed, and one that held the loop longer than N ms *while
/// it waited* (a voluntary context switch: fsync, a blocking read, a sleep) is reported on stderr
/// as `netrules: the event loop was blocked for M ms (budget N ms) by WHAT`, WHAT naming the kind
/// of work and, for a task's job, its priority. The integration tests set
/// it to 10 and fail on that line.
///
/// Waiting is told from being preempted by the thread's voluntary context switches
/// (getrusage(2)): on a busy 2-core machine a job can lose its CPU for longer than the budget
/// without blocking anything, and that is not the loop's fault. Unset (production), it costs one
/// branch per job.
package struct LoopBudget: Sendable {
    /// The budget from `NETRULES_LOOP_BUDGET_MS`, nil when unset or not a positive whole number.
    package static let configured: LoopBudget? = {
        guard let text = getenv("NETRULES_LOOP_BUDGET_MS").map({ String(cString: $0) }),
            let milliseconds = Int(text), milliseconds > 0
        else { return nil }
        return LoopBudget(milliseconds: milliseconds)
    }()

    package var milliseconds: Int

    /// A budget of `milliseconds` a job.
    package init(milliseconds: Int) {
        self.milliseconds = milliseconds
    }

    /// A job about to run: when it started, and how often the thread had waited so far.
    package struct Start {
        var nanoseconds: UInt64
        var switches: Int
    }

    package func start() -> Start {
        Start(nanoseconds: Self.monotonicNanoseconds(), switches: sys_threadVoluntarySwitches())
    }

    /// Reports the job begun at `start` if it blocked the loop past the budget, naming it with
    /// `what` (`a task's job`, `the handler of descriptor 7`; made only for a report); returns
    /// whether it did.
    @discardableResult
    package func end(_ start: Start, _ what: @autoclosure () -> String = "a job") -> Bool {
        let elapsed = (Self.monotonicNanoseconds() - start.nanoseconds) / 1_000_000
        guard elapsed > UInt64(milliseconds), sys_threadVoluntarySwitches() > start.switches else { return false }
        let line = Array(
            "netrules: the event loop was blocked for \(elapsed) ms (budget \(milliseconds) ms) by \(what())\n".utf8)
        _ = line.withUnsafeBytes { sys_write(2, $0) }
        return true
    }

    private static func monotonicNanoseconds() -> UInt64 {
        sys_monotonicMicroseconds() * 1_000
    }
}
