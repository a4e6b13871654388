import NetRulesCore
import Testing

@testable import NetRulesActions

@Suite(.timeLimit(.minutes(1)))
struct ActionRunnerTests {
    @Test func actionsRunInOrderAndAFailureStopsTheRest() async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        let firing = Fixtures.firing(
            rule: "a",
            actions: [
                RunnerHarness.append(log, "1\n"), RunnerHarness.run("exit 1"), RunnerHarness.append(log, "2\n"),
            ])
        await harness.runner.submit(firing, wallTime: "t")
        let results = await harness.settledResults(expecting: 3).sorted { $0.index < $1.index }
        #expect(Fixtures.readFile(log) == Array("1\n".utf8))
        #expect(results.map(\.isSuccess) == [true, false, false])
        guard case .skipped(let reason) = results[2].outcome else { Issue.record("action 2 was not skipped"); return }
        #expect(reason == "action 1 (run) failed")
        #expect(
            harness.log.contains(
                "rule 'a' enter action 1 (run): failed: the command exited with status 1, "
                    + ActionResult.milliseconds(results[1].duration)))
    }

    @Test func continueOnErrorLetsTheFiringGoOn() async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        let firing = Fixtures.firing(
            rule: "a",
            actions: [
                RunnerHarness.run("exit 1", continueOnError: true), RunnerHarness.append(log, "after\n"),
            ])
        await harness.runner.submit(firing, wallTime: "t")
        let results = await harness.settledResults(expecting: 2)
        #expect(Fixtures.readFile(log) == Array("after\n".utf8))
        #expect(results.filter(\.isSuccess).count == 1)
    }

    @Test func firingsOfOneRuleRunOneAtATimeInOrder() async {
        let harness = RunnerHarness(concurrency: 4)
        let log = harness.directory.file("log")
        // At most one firing per edge kind waits (RunnerCoalescingTests): enter runs, exit waits.
        for (n, edge) in [Edge.enter, .exit].enumerated() {
            // The earlier firing sleeps longer: only per-rule ordering keeps the log sorted.
            let firing = Fixtures.firing(
                rule: "a", edge: edge,
                actions: [
                    RunnerHarness.run("sleep 0.\(2 - n); echo \(n) >> \(log)")
                ])
            await harness.runner.submit(firing, wallTime: "t")
        }
        _ = await harness.settledResults(expecting: 2)
        #expect(Fixtures.readFile(log) == Array("0\n1\n".utf8))
    }

    @Test func concurrencyAcrossRulesIsBounded() async throws {
        let harness = RunnerHarness(concurrency: 2)
        let marks = harness.directory.file("marks")
        let counts = harness.directory.file("counts")
        let script =
            "mkdir -p \(marks); touch \(marks)/$NETRULES_RULE; ls \(marks) | wc -l >> \(counts); sleep 0.2; rm \(marks)/$NETRULES_RULE"
        for n in 0..<6 {
            await harness.runner.submit(
                Fixtures.firing(rule: "r\(n)", actions: [RunnerHarness.run(script)]), wallTime: "t")
        }
        let results = await harness.settledResults(expecting: 6)
        #expect(results.allSatisfy { $0.isSuccess })
        let seen = String(decoding: try #require(Fixtures.readFile(counts)), as: UTF8.self).split(separator: "\n")
            .compactMap { Int(String($0).trimmingCharacters) }
        #expect(seen.count == 6)
        #expect(seen.max() == 2, "running at once: \(seen)")
    }

    @Test func aQueuedFiringIsDroppedWhenTheOppositeEdgeFiredSince() async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        func firing(_ edge: Edge, _ text: String, sleep: Bool = false) -> Firing {
            let record = RunnerHarness.append(log, "\(text)\n")
            return Fixtures.firing(
                rule: "link", edge: edge, actions: sleep ? [RunnerHarness.run("sleep 0.3"), record] : [record])
        }
        // The first firing runs (and is not interrupted); the next three wait behind it. Only the
        // last queued one describes the current state.
        await harness.runner.submit(firing(.enter, "up 1", sleep: true), wallTime: "t")
        await harness.runner.submit(firing(.exit, "down 2"), wallTime: "t")
        await harness.runner.submit(firing(.enter, "up 3"), wallTime: "t")
        await harness.runner.submit(firing(.exit, "down 4"), wallTime: "t")
        let results = await harness.settledResults(expecting: 5)
        #expect(Fixtures.readFile(log) == Array("up 1\ndown 4\n".utf8))
        let dropped = results.filter {
            if case .skipped(let reason) = $0.outcome { reason.hasPrefix("coalesced") } else { false }
        }
        #expect(dropped.count == 2)
        #expect(dropped.allSatisfy { $0.coalesced != nil })
    }

    @Test func aFiringOfTheSameEdgeIsNotDropped() async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        await harness.runner.submit(
            Fixtures.firing(rule: "x", actions: [RunnerHarness.run("sleep 0.1"), RunnerHarness.append(log, "1\n")]),
            wallTime: "t")
        await harness.runner.submit(
            Fixtures.firing(rule: "x", actions: [RunnerHarness.append(log, "2\n")]), wallTime: "t")
        _ = await harness.settledResults(expecting: 3)
        #expect(Fixtures.readFile(log) == Array("1\n2\n".utf8))
    }
}
