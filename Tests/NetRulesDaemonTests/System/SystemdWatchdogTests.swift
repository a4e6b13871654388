import NetRulesDaemon
import Testing

/// Whether the daemon has a watchdog to ping, and how often, from systemd's variables.
@Suite(.timeLimit(.minutes(1)))
struct SystemdWatchdogTests {
    @Test func halfOfWatchdogUsecForThisProcess() {
        #expect(SystemdWatchdog(environment: ["WATCHDOG_USEC": "180000000"], pid: 42)?.interval == .seconds(90))
        #expect(
            SystemdWatchdog(environment: ["WATCHDOG_USEC": "500000", "WATCHDOG_PID": "42"], pid: 42)?.interval
                == .milliseconds(250))
    }

    @Test(arguments: [
        [:], ["WATCHDOG_USEC": ""], ["WATCHDOG_USEC": "0"], ["WATCHDOG_USEC": "-5"], ["WATCHDOG_USEC": "3min"],
        ["WATCHDOG_USEC": "500000", "WATCHDOG_PID": "43"],
    ])
    func noWatchdogWithoutAUsableTimeoutOrForAnotherProcess(_ environment: [String: String]) {
        #expect(SystemdWatchdog(environment: environment, pid: 42) == nil)
    }
}
