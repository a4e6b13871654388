import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesActions

/// An action's spawn has a lane of its own (`ChildProcess.spawner`): a shared pool held by slow
/// jobs (NetworkManager's D-Bus round trips answer after up to 5 s each, several per report) does
/// not delay the start of a `run:` command or an action plugin (issues 34 and 35).
@Suite(.timeLimit(.minutes(1)), .serialized)
struct ActionSpawnLaneTests {
    /// Holds each of the shared pool's threads until released (or 20 s, so a failing test still ends).
    final class HeldPool: Sendable {
        private let released = Atomic(false)
        private let holding = Atomic(0)

        func hold(threads: Int) async throws {
            for _ in 0..<threads {
                BlockingPool.shared.spawn { [self] in
                    holding.add(1, ordering: .sequentiallyConsistent)
                    let end = ContinuousClock.now + .seconds(20)
                    while !released.load(ordering: .sequentiallyConsistent), ContinuousClock.now < end {
                        sys_sleep(milliseconds: 5)
                    }
                }
            }
            let deadline = ContinuousClock.now + .seconds(5)
            while holding.load(ordering: .sequentiallyConsistent) < threads, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(
                holding.load(ordering: .sequentiallyConsistent) == threads, "the shared pool's threads are not all held"
            )
        }

        func release() { released.store(true, ordering: .sequentiallyConsistent) }
    }

    @Test func aRunActionStartsWhileTheSharedPoolIsHeld() async throws {
        let held = HeldPool()
        defer { held.release() }
        // The shared pool's limit is 2: both its threads are busy, and a third job would queue.
        try await held.hold(threads: 2)
        let directory = TemporaryDirectory()
        let action = RunAction(
            command: Fixtures.command("printf started > started"), timeout: .seconds(10),
            workingDirectory: directory.path)
        let context = Fixtures.context(Fixtures.firing(facts: [.ssid: "Office"]))
        let began = ContinuousClock.now
        let result = await RunExecutor(loop: .testLoop).execute(
            action, in: context, result: ActionResult(rule: "office", edge: .enter, index: 0, kind: "run"))
        let took = ContinuousClock.now - began
        #expect(result.isSuccess, "\(result)")
        #expect(Fixtures.readFile(directory.file("started")) == Array("started".utf8))
        // A spawn queued behind the held jobs would take their 20 s.
        #expect(took < .seconds(2), "the action waited \(took) for the shared pool")
    }
}
