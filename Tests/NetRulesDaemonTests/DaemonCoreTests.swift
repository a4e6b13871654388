import NetRulesActions
import NetRulesCore
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// Restart, reload and shutdown, decided by `DaemonCore` on virtual time, without root or a
/// process: the namespace suites (NetRulesIntegrationTests) cover the same through the real binary.
@Suite(.timeLimit(.minutes(1)))
struct DaemonCoreTests {
    static let held = """
        version: 1
        rules:
          - name: office
            when: { ssid: Office }
            for: 10s
            do:
              - run: echo in
        """

    static func twoActions(_ second: String = "- run: echo two") -> String {
        """
        version: 1
        rules:
          - name: office
            when: { ssid: Office }
            do:
              - run: echo one
              \(second)
        """
    }

    // MARK: Facts

    /// A plugin's read of several lines is one event: the core handles each update in order, so no
    /// edge is lost, and every firing is journaled before its actions are submitted.
    @Test func updatesHandedOverTogetherFireEveryEdgeInOrderEachJournaledBeforeItsActions() {
        let rules = """
            version: 1
            rules:
              - name: office
                when: { ssid: Office }
                on: [enter, exit]
                do:
                  - run: echo edge
            """
        let updates = ["Office", "Home", "Office"].map { FactUpdate(values: [.ssid: .string($0)]) }
        var together = DaemonCoreDriver(rules: rules)
        let effects = together.send(.factUpdates(updates, from: "feed"), at: 1)
        var apart = DaemonCoreDriver(rules: rules)
        for update in updates { apart.send(.facts(update, from: "feed"), at: 1) }
        #expect(together.firings == ["office:enter@1", "office:exit@1", "office:enter@1"])
        #expect(together.firings == apart.firings)
        #expect(together.core.engine.facts == apart.core.engine.facts)
        // Each submission has a journal line before it that holds its firing in flight.
        var journaled = 0
        for effect in effects {
            switch effect {
            case .appendJournal: journaled += 1
            case .submit:
                #expect(journaled > 0, "a firing submitted before any journal line")
                journaled = 0
            default: break
            }
        }
    }

    // MARK: Restart

    @Test func aRestartMidHoldFiresOnceAtTheOriginalWallClockDeadline() throws {
        var first = DaemonCoreDriver(rules: Self.held)
        first.set([.ssid: "Office"], at: 1)
        #expect(first.armed == Instant(.seconds(11)))
        first.advance(to: 5)
        #expect(first.firings.isEmpty)

        // Killed at 5 s; the next process starts 2 s later and reads what the first one wrote.
        var second = DaemonCoreDriver(rules: Self.held, files: first.files, wall: first.startWall.secondsSince1970 + 7)
        #expect(second.firings.isEmpty, "a restored hold is not completed blind")
        second.set([.ssid: "Office"], at: 1)
        #expect(second.firings.isEmpty, "the original deadline is 4 s into this process")
        second.advance(to: 4)
        #expect(second.firings == ["office:enter@4"])
        #expect(second.submitted.first?.id == "t-1")
        second.report(second.submitted[0], action: 0, at: 4.5)

        // Restarted again, the confirmed truth is restored: the same network fires nothing.
        var third = DaemonCoreDriver(
            rules: Self.held, files: second.files, wall: second.startWall.secondsSince1970 + 60, token: "u")
        third.set([.ssid: "Office"], at: 1)
        third.advance(to: 100)
        #expect(third.firings.isEmpty)
        #expect(third.core.nextFiringNumber == 2, "firing numbers continue across restarts")
    }

    @Test func aRestoredHoldIsCancelledWhenTheConditionIsKnownFalse() {
        var first = DaemonCoreDriver(rules: Self.held)
        first.set([.ssid: "Office"], at: 1)
        var second = DaemonCoreDriver(rules: Self.held, files: first.files, wall: first.startWall.secondsSince1970 + 3)
        second.set([.ssid: "Home"], at: 1)
        second.advance(to: 60)
        #expect(second.firings.isEmpty)
    }

    @Test func aFiringCutShortResumesWithItsIdAtTheActionItReached() throws {
        var first = DaemonCoreDriver(rules: Self.twoActions())
        first.set([.ssid: "Office"], at: 1)
        let firing = try #require(first.submitted.first)
        first.report(firing, action: 0, at: 2)

        var second = DaemonCoreDriver(
            rules: Self.twoActions(), files: first.files, wall: first.startWall.secondsSince1970 + 30, token: "u")
        let resumed = try #require(second.submitted.first)
        #expect(resumed.id == firing.id, "the webhook idempotency key derives from it")
        #expect(resumed.firstAction == 1)
        #expect(resumed.facts[.ssid] == .value("Office"), "with the facts it fired on")
        #expect(second.submitted.count == 1)
        second.report(resumed, action: 1, at: 1)
        #expect(second.core.inflight.isEmpty)
        #expect(second.files.restored?.inflight.isEmpty == true)
    }

    @Test func aFiringOfARuleThatChangedMeanwhileIsDropped() {
        var first = DaemonCoreDriver(rules: Self.twoActions())
        first.set([.ssid: "Office"], at: 1)
        let second = DaemonCoreDriver(
            rules: Self.twoActions("- run: echo changed"), files: first.files,
            wall: first.startWall.secondsSince1970 + 30)
        #expect(second.submitted.isEmpty)
        #expect(second.core.inflight.isEmpty)
    }

    @Test func aCooldownSurvivesARestartInWallClockTime() {
        let rules = """
            version: 1
            rules:
              - name: office
                when: { ssid: Office }
                cooldown: 1h
                do:
                  - run: echo in
            """
        var first = DaemonCoreDriver(rules: rules)
        first.set([.ssid: "Office"], at: 1)
        first.report(first.submitted[0], action: 0, at: 2)
        // 100 s later by the wall clock, the cooldown has 3,501 s to go.
        var second = DaemonCoreDriver(rules: rules, files: first.files, wall: first.startWall.secondsSince1970 + 100)
        second.set([.ssid: nil], at: 10)
        second.set([.ssid: "Office"], at: 20)
        #expect(second.firings.isEmpty)
        let dropped = second.last.compactMap { effect -> HistoryEntry? in
            if case .history(.dropped(let entry)) = effect { entry } else { nil }
        }
        #expect(dropped.map { $0.dropped?.reason } == ["cooldown"])
        second.set([.ssid: nil], at: 3_510)
        second.set([.ssid: "Office"], at: 3_520)
        #expect(second.firings == ["office:enter@3520"])
    }

    @Test func aSavedTimeOutOfRangeSetsTheFileAsideAndStartsFresh() throws {
        let fingerprint = try #require(DaemonCoreDriver.rules(Self.held).rules.first?.fingerprint)
        var saved = PersistedState()
        saved.rules["office"] = PersistedState.SavedRule(
            fingerprint: fingerprint, confirmed: true, cooldownUntil: nil, hold: (true, 1e300))
        var files = SavedFiles()
        files.stateFile = saved.encoded()
        var driver = DaemonCoreDriver(rules: Self.held, files: files)
        let asides = driver.last.filter { if case .setAsideStateFile = $0 { true } else { false } }
        #expect(asides.count == 1)
        #expect(driver.files.restored?.rules.isEmpty == true, "the fresh state replaced it")
        driver.set([.ssid: "Office"], at: 1)
        driver.advance(to: 11)
        #expect(driver.firings == ["office:enter@11"])
    }

    // MARK: Reload

    @Test func aReloadThatChangesTheActionsNeitherRetiresAFiringInFlightEarlyNorKeepsItForever() throws {
        var driver = DaemonCoreDriver(rules: Self.twoActions())
        driver.set([.ssid: "Office"], at: 1)
        let firing = try #require(driver.submitted.first)
        let id = try #require(firing.id)
        driver.report(firing, action: 0, at: 2)

        // The rule now has one action: its condition is the same, so its state is kept (no second
        // firing, issue 34), and the firing already in flight keeps its own two.
        let effects = driver.send(.reloaded(DaemonCoreDriver.rules(Self.twoActions(""))), at: 3)
        #expect(effects.contains { if case .configureObservers = $0 { true } else { false } })
        #expect(driver.firings == ["office:enter@1"])
        #expect(driver.core.inflight[id]?.nextAction == 1)
        driver.report(firing, action: 1, at: 4)
        #expect(driver.core.inflight[id] == nil)
        #expect(driver.core.inflight.isEmpty)
        #expect(driver.files.restored?.inflight.isEmpty == true)
    }

    @Test func aReloadKeepsTheStateOfUnchangedRulesAndAFailedOneChangesNothing() {
        var driver = DaemonCoreDriver(rules: Self.held)
        driver.set([.ssid: "Office"], at: 1)
        driver.send(.reloaded(DaemonCoreDriver.rules(Self.held)), at: 5)
        driver.send(.reloadFailed(), at: 6)
        driver.advance(to: 11)
        #expect(driver.firings == ["office:enter@11"], "the hold went on through both reloads")
        #expect(driver.core.ruleSet.rules.map(\.name) == ["office"])
    }

    // MARK: Shutdown

    @Test func shutdownRecordsResultsWhileTheRunnerDrainsThenSnapshots() throws {
        var driver = DaemonCoreDriver(rules: Self.twoActions())
        driver.set([.ssid: "Office"], at: 1)
        let firing = try #require(driver.submitted.first)
        driver.report(firing, action: 0, at: 2)

        let effects = driver.send(.shutdown, at: 3)
        #expect(driver.core.phase == .stopping)
        #expect(!driver.finished)
        let kinds = effects.map { "\($0)".prefix { $0 != "(" } }
        #expect(kinds.contains("stopObservers") && kinds.last == "drainRunner", "\(kinds)")

        // Facts still queued are not acted on once stopping.
        let late = driver.send(.facts(FactUpdate(values: [.ssid: nil])), at: 3.5)
        #expect(late.isEmpty)
        // The action running when shutdown began finishes within the grace period: recorded.
        driver.report(firing, action: 1, at: 4)
        #expect(driver.core.inflight.isEmpty)
        driver.send(.drained, at: 5)
        #expect(driver.finished)
        #expect(driver.files.journal.isEmpty, "the last snapshot emptied the journal")

        let next = DaemonCoreDriver(
            rules: Self.twoActions(), files: driver.files, wall: driver.startWall.secondsSince1970 + 10)
        #expect(next.submitted.isEmpty, "a finished action is not run again")
    }

    @Test func shutdownWithAnActionThatNeverReportedKeepsItsFiringForTheNextStart() throws {
        var driver = DaemonCoreDriver(rules: Self.twoActions())
        driver.set([.ssid: "Office"], at: 1)
        let firing = try #require(driver.submitted.first)
        driver.report(firing, action: 0, at: 2)
        driver.send(.shutdown, at: 3)
        driver.send(.drained, at: 33)
        #expect(driver.finished)
        #expect(driver.files.restored?.inflight.map(\.nextAction) == [1])

        let next = DaemonCoreDriver(
            rules: Self.twoActions(), files: driver.files, wall: driver.startWall.secondsSince1970 + 40)
        #expect(next.submitted.map(\.id) == [firing.id])
        #expect(next.submitted.map(\.firstAction) == [1])
    }

    // MARK: Persistence

    @Test func theJournalReplaysToTheCoreStateAndIsCompactedAfter256Lines() {
        let rules = """
            version: 1
            rules:
              - name: office
                when: { ssid: Office }
                on: [enter, exit]
                do:
                  - run: echo flip
            """
        var driver = DaemonCoreDriver(rules: rules)
        var snapshots = 0
        var seconds = 1.0
        for flip in 0..<300 {
            driver.set([.ssid: flip % 2 == 0 ? "Office" : "Home"], at: seconds)
            if driver.last.contains(where: { if case .writeSnapshot = $0 { true } else { false } }) { snapshots += 1 }
            // What a restart would read is exactly what the core holds.
            #expect(driver.files.restored?.encoded() == driver.core.currentState().encoded())
            #expect(driver.core.journalLines < DaemonCore.compactionLines)
            if flip % 3 == 0 { driver.report(driver.submitted.last!, action: 0, at: seconds + 0.1) }
            seconds += 1
        }
        #expect(snapshots == 1, "300 flips and 100 results append 400 lines: one compaction, at 256")
        #expect(driver.firings.count == 300)
    }

    @Test func aJournalLineThatCannotBeWrittenIsReplacedByASnapshot() throws {
        var driver = DaemonCoreDriver(rules: Self.twoActions())
        driver.set([.ssid: "Office"], at: 1)
        #expect(driver.last.contains { if case .appendJournal = $0 { true } else { false } })
        let recovery = driver.send(.journalAppendFailed, at: 1)
        let snapshot = try #require(
            recovery.compactMap { effect -> PersistedState? in
                if case .writeSnapshot(let state) = effect { state } else { nil }
            }.first)
        #expect(snapshot.inflight.count == 1)
        // A snapshot that fails is written whole again after the next event.
        #expect(driver.send(.snapshotFailed, at: 1).isEmpty, "no retry within the event: it would fail the same way")
        driver.report(driver.submitted[0], action: 0, at: 2)
        #expect(driver.last.contains { if case .writeSnapshot = $0 { true } else { false } })
    }

    // MARK: Facts

    @Test func factChangesAreReportedByKeyOnlyWhenSomethingChanged() {
        var driver = DaemonCoreDriver(rules: Self.held)
        driver.set([.ssid: "Office", .bssid: "a4:2b:8c:92:47:3c"], at: 1)
        let changes = driver.last.compactMap { effect -> [Engine.Step.Change]? in
            if case .factsChanged(let changes) = effect { changes } else { nil }
        }
        #expect(changes.first?.map(\.key) == [.bssid, .ssid])
        #expect(changes.first?.first?.old == .unknown)
        driver.set([.ssid: "Office"], at: 2)
        #expect(!driver.last.contains { if case .factsChanged = $0 { true } else { false } })
    }

    @Test func eventsBeforeStartOrAfterTheEndAreIgnored() {
        var core = DaemonCore(processToken: "t", logger: .disabled, recordsHistory: false)
        #expect(
            core.handle(.facts(FactUpdate(values: [.ssid: "Office"])), at: .zero, wall: .init(secondsSince1970: 0))
                .isEmpty)
        var driver = DaemonCoreDriver(rules: Self.held, history: false)
        driver.send(.shutdown, at: 1)
        driver.send(.drained, at: 2)
        #expect(driver.send(.deadline, at: 3).isEmpty)
        #expect(driver.send(.reloaded(DaemonCoreDriver.rules(Self.held)), at: 3).isEmpty)
    }
}
