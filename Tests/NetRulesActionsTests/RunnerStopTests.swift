@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// `ActionRunner.stop()`: what a shutdown that cannot wait does to running actions (issue 10, item 4).
@Suite(.timeLimit(.minutes(1)))
struct RunnerStopTests {
    @Test func stopKillsARunningCommandAndReportsNothingForIt() async throws {
        let harness = RunnerHarness()
        let marker = harness.directory.file("started")
        let finished = harness.directory.file("finished")
        await harness.runner.submit(
            Fixtures.firing(actions: [RunnerHarness.run("touch \(marker); sleep 30; touch \(finished)")]), wallTime: "t"
        )
        for _ in 0..<200 where !Fixtures.exists(marker) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Fixtures.exists(marker))
        let start = ContinuousClock.now
        await harness.runner.stop()
        await harness.runner.drain()
        #expect(ContinuousClock.now - start < .seconds(5), "stop() did not end the command")
        try await Task.sleep(for: .milliseconds(100))
        #expect(!Fixtures.exists(finished))
        #expect(harness.log.filter { $0.contains("succeeded") || $0.contains("failed") }.isEmpty, "\(harness.log)")
    }

    @Test func stopEndsWebhookRetriesAndKeepsTheEntryInTheOutbox() async throws {
        let server = try TestHTTPServer { _ in .status(500) }
        defer { server.stop() }
        let harness = RunnerHarness()
        let write = RunnerHarness.append(harness.directory.file("after"), "x")
        let hook = ActionSpec(
            WebhookAction(url: Fixtures.template(server.url("/hook")), attempts: 100, backoff: .milliseconds(200)))
        await harness.runner.submit(Fixtures.firing(actions: [hook, write]), wallTime: "t")
        for _ in 0..<300 where server.requests.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        let start = ContinuousClock.now
        await harness.runner.stop()
        await harness.runner.drain()
        #expect(ContinuousClock.now - start < .seconds(5), "stop() did not end the retries")
        let pending = try sys_listDirectory(harness.directory.file("state/outbox")).get(call: "list")
            .filter { $0.hasSuffix(".json") }
        #expect(pending.count == 1, "the delivery left the outbox: \(pending)")
        #expect(!Fixtures.exists(harness.directory.file("after")), "the next action ran during shutdown")
    }

    @Test func aFiringResumedAtAnActionSkipsTheOnesBefore() async throws {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        var firing = Fixtures.firing(actions: [
            RunnerHarness.append(log, "0\n"), RunnerHarness.append(log, "1\n"), RunnerHarness.append(log, "2\n"),
        ])
        firing.id = "resumed-1"
        firing.firstAction = 1
        await harness.runner.submit(firing, wallTime: "t")
        let results = await harness.settledResults(expecting: 2)
        #expect(results.map(\.index) == [1, 2])
        #expect(Fixtures.readFile(log) == Array("1\n2\n".utf8))
    }

    @Test func theWriteTimeoutIsCancelledWithTheTask() async {
        let task = Task {
            await DedicatedThread.run(within: .seconds(30), on: .testLoop) {
                sleep(10); return 1
            }
        }
        try? await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        task.cancel()
        #expect(await task.value == nil)
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
