import NetRulesActions
import NetRulesCore
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

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

    /// Issue 37, item 2: what `status`, `rules` and `doctor` show while reloads fail.
    @Test func aFailedReloadIsKeptWithEachFilesStartUntilAReloadLoads() {
        var driver = DaemonCoreDriver(rules: Self.rules)
        func at(_ seconds: Int64) -> String { (driver.startWall + .seconds(seconds)).rfc3339 }
        #expect(driver.core.reloadFailure == nil, "the rules loaded at start")

        driver.send(.reloadFailed(report: LoadReport(errorsByFile: ["b.yaml": 2])), at: 2)
        #expect(
            driver.core.reloadFailure?.shown
                == FailedReload(files: [.init(path: "b.yaml", errors: 2, since: at(2))], problems: [], since: at(2)))

        // Saved again, still broken, and another file broken too: b.yaml's errors began at 2.
        driver.send(
            .reloadFailed(
                report: LoadReport(
                    refused: ["refusing rule file d.yaml: it is writable by others"],
                    errorsByFile: ["c.yaml": 1, "b.yaml": 1, "e.yaml": 0])), at: 5)
        #expect(
            driver.core.reloadFailure?.shown
                == FailedReload(
                    files: [
                        .init(path: "b.yaml", errors: 1, since: at(2)), .init(path: "c.yaml", errors: 1, since: at(5)),
                    ],
                    problems: ["refusing rule file d.yaml: it is writable by others"], since: at(2)))

        // Nothing readable: no file with errors, the series still began at 2.
        driver.send(
            .reloadFailed(report: LoadReport(readError: "cannot read 'rules': no such file or directory")), at: 6)
        #expect(
            driver.core.reloadFailure?.shown
                == FailedReload(
                    files: [], problems: ["cannot read 'rules': no such file or directory"], since: at(2)))

        driver.send(.reloaded(DaemonCoreDriver.rules(Self.twoRules)), at: 7)
        #expect(driver.core.reloadFailure == nil, "a reload that loads clears it")
        driver.send(.reloadFailed(report: LoadReport(errorsByFile: ["b.yaml": 4])), at: 8)
        #expect(driver.core.reloadFailure?.files.map(\.since) == [driver.startWall + .seconds(8)], "a new series")
        #expect(driver.core.ruleSet.rules.count == 2)
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
