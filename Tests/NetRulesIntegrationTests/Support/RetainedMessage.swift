import NetRulesTesting

/// The retained message on `topic` as `TOPIC PAYLOAD`, once `matches` accepts it (within 20 s);
/// the daemon's log in the failure.
@discardableResult
func retained(
    _ broker: TestBroker, _ topic: String, _ what: String, _ testbed: Testbed, _ matches: (String) -> Bool
) async throws -> String {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if let line = try await broker.retained(topic).first, matches(line) { return line }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw TestError("timed out waiting for \(what) on \(topic); log:\n\(testbed.logTail())")
}
