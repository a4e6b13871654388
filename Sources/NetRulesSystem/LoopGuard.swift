internal import CNetRulesLinux
@preconcurrency import Glibc
import Synchronization

/// Makes "never block the daemon's loop" an assertion instead of a timing budget: in a debug
/// build, once armed, every wrapper of a call that may block (fsync and fdatasync, the stat family
/// and realpath, the account database, getaddrinfo, a poll or waitpid that waits, a sleep, a D-Bus
/// connect or method call) traps when it is called on an event loop's thread while that thread
/// runs a job, as NIO's `preconditionNotInEventLoop` does. Such work belongs on `BlockingPool`, a
/// lane of its own or a `DedicatedThread`. Release builds check nothing; `LoopBudget` stays the
/// latency report.
///
/// A loop is guarded when asked (`guardBlockingCalls(on:)`): `netrules run` guards its loop while the daemon
/// runs (the integration testbed's daemons among them); a one-shot command (`check`, `simulate`, `doctor`) may
/// wait on its own loop, which serves nobody else. `NETRULES_LOOP_TRAP=0` in the environment
/// guards nothing; `NETRULES_LOOP_TRAP=log` writes the call and its stack to stderr instead of
/// trapping, to find every such call in one run.
package enum LoopGuard {
    private enum Mode: UInt8 { case off, trap, log }

    /// What the environment asks for (debug builds; off in release builds), read once.
    private static let mode: Mode = {
        #if DEBUG
            let value = getenv("NETRULES_LOOP_TRAP").map { String(cString: $0) }
            return value == "0" ? .off : value == "log" ? .log : .trap
        #else
            return .off
        #endif
    }()

    /// Whether blocking calls on a guarded loop trap (or are logged) in this process.
    package static var isArmed: Bool { mode != .off }

    /// Guards `loop` (or stops guarding it): from its next pass on (the loop reads the flag each
    /// time its poll returns), a blocking wrapper called from its jobs traps. Does nothing when
    /// the guard is not armed.
    package static func guardBlockingCalls(on loop: ThreadExecutor, _ guarded: Bool = true) {
        guard isArmed else { return }
        loop.guardsBlockingCalls.store(guarded, ordering: .relaxed)
    }

    /// Traps when the guard is armed and the calling thread runs an event loop's job: `call` may
    /// block, and a blocked loop stops every observer, action and control request at once.
    @inline(__always)
    package static func offLoop(_ call: StaticString) {
        #if DEBUG
            if CNetRulesLinux_running_loop() != 0 { blockedOnLoop(call) }
        #endif
    }

    #if DEBUG
        private static func blockedOnLoop(_ call: StaticString) {
            let message = "\(call) may block and was called on the event loop's thread: move it off the loop"
            guard mode == .log else { fatalError(message) }
            let line = Array("netrules: loop guard: \(message)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            CNetRulesLinux_write_backtrace()
        }
    #endif

    /// Whether the calling thread runs a guarded event loop's job now.
    package static var isOnLoop: Bool { CNetRulesLinux_running_loop() != 0 }

    /// Marks the calling thread as running loop jobs (`ThreadExecutor.run`) or waiting in its poll.
    static func setRunningLoop(_ running: Bool) { CNetRulesLinux_set_running_loop(running ? 1 : 0) }
}
