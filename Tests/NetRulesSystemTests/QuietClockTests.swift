import NetRulesSystem
import NetRulesTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct QuietClockTests {
    @Test func sleepsUntilTheDeadline() async throws {
        let clock = QuietClock(loop: .testLoop)
        let start = clock.now
        try await clock.sleep(for: .milliseconds(50))
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(50))
        #expect(elapsed < .seconds(2), "guard against a lost wake-up")
    }

    @Test func earlierDeadlinesWakeFirst() async throws {
        let clock = QuietClock(loop: .testLoop)
        let order = await withTaskGroup(of: Int.self) { group in
            for (i, ms) in [(0, 120), (1, 20), (2, 60)] {
                group.addTask {
                    try? await clock.sleep(for: .milliseconds(ms))
                    return i
                }
            }
            var order: [Int] = []
            for await i in group { order.append(i) }
            return order
        }
        #expect(order == [1, 2, 0])
    }

    @Test func cancellationEndsASleepAtOnce() async throws {
        let clock = QuietClock(loop: .testLoop)
        let start = clock.now
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(20))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.now - start < .seconds(2))
    }

    @Test(.timeLimit(.minutes(1))) func aPastDeadlineReturnsImmediately() async throws {
        let clock = QuietClock(loop: .testLoop)
        let start = clock.now
        try await clock.sleep(until: start - .seconds(1))
        // No timer was armed: the call returned without waiting for the timer thread.
        #expect(clock.now - start < .milliseconds(50))
    }
}
