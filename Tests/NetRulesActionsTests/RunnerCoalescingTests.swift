import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// Bounded firings (issue 34, point 4): while a rule's firing runs, its later edges coalesce to the
/// net transition, and after `startNoMoreFirings()` nothing starts.
@Suite(.timeLimit(.minutes(1)))
struct RunnerCoalescingTests {
    /// A firing of rule `a` whose one action appends its edge to `log`, after `sleep` (or, with
    /// `until`, once that file exists).
    private static func firing(
        _ edge: Edge, _ log: String, sleep: String = "0", until: String? = nil, id: String? = nil
    ) -> Firing {
        let wait = until.map { "while [ ! -e \($0) ]; do sleep 0.01; done" } ?? "sleep \(sleep)"
        var firing = Fixtures.firing(
            rule: "a", edge: edge, actions: [RunnerHarness.run("\(wait); echo \(edge) >> \(log)")])
        firing.id = id
        return firing
    }

    private static func edges(_ log: String) -> [String] {
        String(decoding: Fixtures.readFile(log) ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(arguments: [1_999, 2_000])
    func twoThousandTogglesRunAtMostTwoFirings(toggles: Int) async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        // The first firing runs until every toggle is in (on a loaded machine submitting 2,000
        // took longer than a fixed sleep: the first run ended part-way and later edges ran).
        let go = harness.directory.file("go")
        for n in 0..<toggles {
            let edge: Edge = n % 2 == 0 ? .enter : .exit
            await harness.runner.submit(
                Self.firing(edge, log, until: n == 0 ? go : nil, id: "f\(n)"), wallTime: "t")
        }
        Fixtures.writeFile(go, [])
        let results = await harness.settledResults(expecting: toggles)
        // The first enter runs; behind it each exit/enter pair cancels. An odd count ends on an
        // enter, where the running firing leaves the rule: nothing more runs. An even count ends
        // on an exit: one more run.
        let expected = toggles % 2 == 0 ? ["enter", "exit"] : ["enter"]
        #expect(Self.edges(log) == expected)
        #expect(results.count == toggles)
        let dropped = results.filter { $0.coalesced != nil }
        #expect(dropped.count == toggles - expected.count)
        #expect(dropped.allSatisfy { if case .skipped = $0.outcome { true } else { false } })
        let first = results.first { $0.firingID == "f0" }
        #expect(first?.coalescedEdges == (toggles % 2 == 0 ? toggles - 2 : toggles - 1))
        #expect(
            harness.log.contains {
                $0.contains("rule 'a' enter action 0 (run): succeeded") && $0.contains("edges coalesced")
            })
    }

    @Test func aLikeEdgeReplacesTheWaitingOneAndTheLaterFactsWin() async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        await harness.runner.submit(Self.firing(.enter, log, sleep: "0.2", id: "1"), wallTime: "t")
        for n in 2...4 {
            var firing = Fixtures.firing(
                rule: "a", edge: .enter, facts: [.ssid: .string("net\(n)")],
                actions: [RunnerHarness.run("echo $NETRULES_SSID >> \(log)")])
            firing.id = "\(n)"
            await harness.runner.submit(firing, wallTime: "t")
        }
        let results = await harness.settledResults(expecting: 4)
        #expect(Self.edges(log) == ["enter", "net4"])
        #expect(Set(results.filter { $0.coalesced == .enter }.compactMap(\.firingID)) == ["2", "3"])
    }

    @Test func anExitThenEnterWhileEnterRunsIsNothing() async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        await harness.runner.submit(Self.firing(.enter, log, sleep: "0.2"), wallTime: "t")
        await harness.runner.submit(Self.firing(.exit, log), wallTime: "t")
        await harness.runner.submit(Self.firing(.enter, log), wallTime: "t")
        _ = await harness.settledResults(expecting: 3)
        #expect(Self.edges(log) == ["enter"])
    }

    @Test func aFiringResumedPartWayIsNeverCoalesced() async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        await harness.runner.submit(Self.firing(.enter, log, sleep: "0.2"), wallTime: "t")
        var resumed = Fixtures.firing(
            rule: "a", edge: .exit,
            actions: [RunnerHarness.run("echo never >> \(log)"), RunnerHarness.run("echo resumed >> \(log)")])
        resumed.firstAction = 1
        await harness.runner.submit(resumed, wallTime: "t")
        await harness.runner.submit(Self.firing(.enter, log), wallTime: "t")
        _ = await harness.settledResults(expecting: 3)
        #expect(Self.edges(log) == ["enter", "resumed", "enter"])
    }

    @Test func withoutCoalescingEveryFiringRunsInOrder() async {
        // simulate --execute: a timeline's firings are hours apart in its virtual time.
        let harness = RunnerHarness(coalescesFirings: false)
        let log = harness.directory.file("log")
        for edge in [Edge.enter, .exit, .enter, .enter] {
            await harness.runner.submit(Self.firing(edge, log, sleep: "0.05"), wallTime: "t")
        }
        _ = await harness.settledResults(expecting: 4)
        #expect(Self.edges(log) == ["enter", "exit", "enter", "enter"])
    }

    @Test func otherRulesAreNotCoalesced() async {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        await harness.runner.submit(Self.firing(.enter, log, sleep: "0.2"), wallTime: "t")
        for rule in ["b", "c"] {
            await harness.runner.submit(
                Fixtures.firing(rule: rule, actions: [RunnerHarness.run("echo \(rule) >> \(log)")]), wallTime: "t")
        }
        _ = await harness.settledResults(expecting: 3)
        #expect(Self.edges(log).sorted() == ["b", "c", "enter"])
    }

    @Test func afterStartNoMoreFiringsOnlyTheRunningOneFinishes() async throws {
        let harness = RunnerHarness()
        let log = harness.directory.file("log")
        let started = harness.directory.file("started")
        await harness.runner.submit(
            Fixtures.firing(rule: "a", actions: [RunnerHarness.run("touch \(started); sleep 0.3; echo a >> \(log)")]),
            wallTime: "t")
        await harness.runner.submit(Self.firing(.exit, log), wallTime: "t")
        await harness.runner.submit(
            Fixtures.firing(rule: "b", actions: [RunnerHarness.run("sleep 0.3; echo b >> \(log)")]), wallTime: "t")
        for _ in 0..<200 where !Fixtures.exists(started) { try await Task.sleep(for: .milliseconds(10)) }
        await harness.runner.startNoMoreFirings()
        await harness.runner.submit(Self.firing(.enter, log), wallTime: "t")
        await harness.runner.drain()
        // b had started too (4 slots); a's queued exit and the later enter never start.
        #expect(Self.edges(log).sorted() == ["a", "b"])
        #expect(harness.log.contains { $0.contains("stopping: 1 queued firing not started ('a' exit)") })
        #expect(harness.log.contains { $0.contains("stopping: rule 'a' enter not started") })
        try await Task.sleep(for: .milliseconds(100))
        #expect(Self.edges(log).sorted() == ["a", "b"])
    }
}
