import NetRulesTesting

/// How often ``eventually(_:timeout:_:)`` looks again: short enough that latency is not what a
/// test measures, long enough not to steal a core from the daemon on a 2-core machine.
let pollInterval = Duration.milliseconds(20)

/// Waits until `condition` holds, looking every ``pollInterval``; throws after `timeout`.
///
/// The timeout is only a failure guard: a passing test returns as soon as the outcome is
/// visible, so the guards can be generous for a loaded shared machine.
func eventually(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(15), _ condition: () throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while try !condition() {
        guard clock.now < deadline else { throw TestError("timed out after \(timeout) waiting for \(what())") }
        try await Task.sleep(for: pollInterval)
    }
}

/// Waits until `instant`, for steps that must happen at a point of the daemon's timeline
/// (killing it in the middle of a `for:` hold), never as a way to await an outcome.
func wait(until instant: ContinuousClock.Instant) async throws {
    try await Task.sleep(until: instant, clock: ContinuousClock())
}
