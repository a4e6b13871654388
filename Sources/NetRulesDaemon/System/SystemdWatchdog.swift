import NetRulesSystem

/// systemd's watchdog (`WatchdogSec=` in the unit, sd_watchdog_enabled(3)): the daemon's own event
/// loop sends `WATCHDOG=1` every half of `WATCHDOG_USEC`, so a loop that stops (wedged, spinning
/// or blocked) stops the pings, and systemd kills the service and restarts it.
///
/// The pings are a sleep on `QuietClock`, which on the daemon's loop is one of its own timers: they
/// come only while the loop runs its timers and jobs. Without `WATCHDOG_USEC` (not under systemd,
/// or no `WatchdogSec=`), or with a `WATCHDOG_PID` that is not this process (a child that
/// inherited the variables), there is no watchdog and nothing wakes up for it.
package struct SystemdWatchdog: Sendable, Equatable {
    /// Between two pings: half the timeout systemd gave, as sd_watchdog_enabled(3) advises.
    package let interval: Duration

    /// Reads `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`; nil when there is no
    /// watchdog for process `pid`.
    package init?(environment: [String: String], pid: Int32) {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty, Int32(owner) != pid { return nil }
        interval = .microseconds(microseconds / 2)
    }

    /// Pings at once, then every `interval` (a timer of `loop`), until the task is cancelled.
    package func run(on loop: ThreadExecutor, ping: @Sendable () -> Void) async {
        let clock = QuietClock(loop: loop)
        while !Task.isCancelled {
            ping()
            do {
                try await clock.sleep(for: interval)
            } catch {
                return  // cancelled: the daemon is stopping
            }
        }
    }
}
