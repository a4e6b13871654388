import NetRulesActions
import NetRulesCore
import Testing

@testable import NetRulesDaemon

/// Reloads and the second stop signal, decided by `DaemonCore` on virtual time: which read of the
/// rule files happens when, which control client gets which answer, and what a second SIGTERM does.
@Suite(.timeLimit(.minutes(1)))
struct DaemonCoreReloadTests {
    static let rules = DaemonCoreTests.held
    static let twoRules =
        DaemonCoreTests.held + "\n  - name: home\n    when: { ssid: Home }\n    do:\n      - run: echo home\n"

    /// The answers in `effects`, as `ticket:reloaded/rules`.
    static func answers(_ effects: [DaemonEffect]) -> [String] {
        effects.compactMap {
            guard case .answerReload(let ticket, let outcome) = $0 else { return nil }
            return "\(ticket):\(outcome.reloaded ? "reloaded" : "kept")/\(outcome.rules)"
        }
    }

    static func loads(_ effects: [DaemonEffect]) -> Int {
        effects.count { if case .loadRules = $0 { true } else { false } }
    }

    @Test func theFilesAreReadOnceAtATimeAndEveryWaitingClientIsAnswered() {
        var driver = DaemonCoreDriver(rules: Self.rules)
        #expect(Self.loads(driver.send(.reloadRequested(1), at: 1)) == 1)
        // Asked while the first read is under way: no second read at once, and nobody answered yet.
        #expect(driver.send(.reloadRequested(2), at: 1.1).isEmpty)
        #expect(driver.send(.reloadRequested(nil), at: 1.2).isEmpty, "SIGHUP meanwhile")

        // The first read ends: its client hears, and the files are read again for those who asked since
        // (a file may have changed after the first read began).
        let first = driver.send(.reloaded(DaemonCoreDriver.rules(Self.twoRules)), at: 2)
        #expect(Self.answers(first) == ["1:reloaded/2"])
        #expect(Self.loads(first) == 1)
        #expect(driver.core.ruleSet.rules.map(\.name) == ["office", "home"])

        let second = driver.send(.reloadFailed(report: LoadReport(text: "rules.yaml:4:3: error: …\n")), at: 3)
        #expect(Self.answers(second) == ["2:kept/2"])
        #expect(Self.loads(second) == 0, "nobody asked since")
        guard
            case .answerReload(_, let outcome)? = second.first(where: {
                if case .answerReload = $0 { true } else { false }
            })
        else { return }
        #expect(outcome.rendered.contains("rules.yaml:4:3"))
        #expect(driver.core.ruleSet.rules.count == 2, "a failed reload keeps the rules running")
    }

    @Test func aReloadAskedOnceStoppingIsRefusedAndOneBeingReadIsAnsweredWhenItEnds() {
        var driver = DaemonCoreDriver(rules: Self.rules)
        driver.send(.reloadRequested(1), at: 1)
        driver.send(.reloadRequested(2), at: 1.5)
        let stopping = driver.send(.shutdown, at: 2)
        #expect(Self.answers(stopping) == ["2:kept/1"], "the queued one will never be read")
        #expect(Self.answers(driver.send(.reloadRequested(3), at: 2.5)) == ["3:kept/1"])

        // The read under way ends after shutdown began: refused, the rules unchanged.
        let late = driver.send(.reloaded(DaemonCoreDriver.rules(Self.twoRules)), at: 3)
        #expect(Self.answers(late) == ["1:kept/1"])
        #expect(Self.loads(late) == 0)
        #expect(driver.core.ruleSet.rules.map(\.name) == ["office"])
        driver.send(.drained, at: 4)
        #expect(driver.finished)
    }

    @Test func aReloadStillBeingReadWhenTheDaemonFinishesIsAnswered() {
        var driver = DaemonCoreDriver(rules: Self.rules)
        driver.send(.reloadRequested(7), at: 1)
        driver.send(.shutdown, at: 2)
        let end = driver.send(.drained, at: 3)
        #expect(Self.answers(end) == ["7:kept/1"])
        #expect(driver.finished)
    }

    @Test func aSecondStopSignalStopsRunningActionsAtOnceAndTheStateIsStillSaved() throws {
        var driver = DaemonCoreDriver(rules: DaemonCoreTests.twoActions())
        driver.set([.ssid: "Office"], at: 1)
        let firing = try #require(driver.submitted.first)
        let first = driver.send(.shutdown, at: 2)
        #expect(first.contains { if case .drainRunner = $0 { true } else { false } })
        #expect(!first.contains { if case .stopRunningActions = $0 { true } else { false } })

        let second = driver.send(.shutdown, at: 3)
        #expect(second.count == 1)
        #expect(second.contains { if case .stopRunningActions = $0 { true } else { false } })
        // The stopped action still reports, and the unfinished firing is kept for the next start.
        driver.report(firing, action: 0, at: 3.5)
        driver.send(.drained, at: 4)
        #expect(driver.finished)
        #expect(driver.files.restored?.inflight.map(\.nextAction) == [1])
    }
}
