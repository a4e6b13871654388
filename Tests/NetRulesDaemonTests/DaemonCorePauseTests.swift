import NetRulesActions
import NetRulesCore
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// A rule paused by a command (`mqtt: commands: true`), decided by `DaemonCore` on virtual time:
/// its firings are skipped and recorded, the engine keeps its truth, and the pause is persisted
/// and restored.
@Suite(.timeLimit(.minutes(1)))
struct DaemonCorePauseTests {
    static func rules(commands: Bool = true, names: [String] = ["office"]) -> String {
        let rules = names.map { name in
            "  - name: \(name)\n    when: { ssid: Office }\n    on: [enter, exit]\n    do:\n      - run: echo edge\n"
        }
        return "version: 1\nmqtt:\n  broker: mqtt://127.0.0.1:1883\n  client_id: laptop-1\n  commands: \(commands)\n"
            + "rules:\n" + rules.joined()
    }

    /// The history entries of `effects` that say a firing was dropped, as `rule:edge:reason`.
    static func drops(_ effects: [DaemonEffect]) -> [String] {
        effects.compactMap { effect in
            guard case .history(.dropped(let entry)) = effect else { return nil }
            return "\(entry.rule):\(entry.edge):\(entry.dropped?.reason ?? "")"
        }
    }

    static func pauses(_ effects: [DaemonEffect]) -> [Set<String>] {
        effects.compactMap { effect in
            if case .pausesChanged(let names) = effect { names } else { nil }
        }
    }

    @Test func aPausedRulesFiringsAreSkippedAndRecordedAndResumingFiresNothingStale() throws {
        var driver = DaemonCoreDriver(rules: Self.rules())
        driver.set([.ssid: "Home"], at: 1)
        let paused = driver.send(.pause(rule: "office", paused: true, by: "MQTT"), at: 2)
        #expect(Self.pauses(paused) == [["office"]])
        #expect(driver.core.pausedRules == [PausedRule(rule: "office", by: "MQTT", since: "2027-01-15T08:00:02Z")])

        // Office while paused: the enter is not run, and the history says why.
        let skipped = driver.set([.ssid: "Office"], at: 3)
        #expect(driver.firings.isEmpty)
        #expect(Self.drops(skipped) == ["office:enter:paused"])
        let entry = try #require(
            skipped.compactMap { if case .history(.dropped(let e)) = $0 { e } else { nil } }.first)
        #expect(entry.facts.map(\.key) == ["ssid"])
        #expect(
            HistoryText.block(entry) { _ in 0 }.contains(
                "  dropped: paused (the rule was paused: its actions did not run)"))

        // Resumed while the rule is true: nothing stale fires; the next edges do.
        let resumed = driver.send(.pause(rule: "office", paused: false, by: "MQTT"), at: 4)
        #expect(Self.pauses(resumed) == [[]])
        #expect(driver.firings.isEmpty)
        driver.set([.ssid: "Home"], at: 5)
        driver.set([.ssid: "Office"], at: 6)
        #expect(driver.firings == ["office:exit@5", "office:enter@6"])
    }

    @Test func aCommandThatChangesNothingOrNamesNoRuleIsIgnored() {
        var driver = DaemonCoreDriver(rules: Self.rules())
        #expect(Self.pauses(driver.send(.pause(rule: "office", paused: false, by: "MQTT"), at: 1)) == [])
        #expect(Self.pauses(driver.send(.pause(rule: "nobody", paused: true, by: "MQTT"), at: 1)) == [])
        #expect(Self.pauses(driver.send(.pause(rule: "office", paused: true, by: "MQTT"), at: 2)) == [["office"]])
        #expect(Self.pauses(driver.send(.pause(rule: "office", paused: true, by: "MQTT"), at: 3)) == [])
        #expect(driver.core.paused.keys.sorted() == ["office"])
        #expect(driver.core.paused["office"]?.since == driver.startWall + .seconds(2), "the first pause counts")
    }

    @Test func withoutCommandsTrueACommandIsIgnored() {
        var driver = DaemonCoreDriver(rules: Self.rules(commands: false))
        let effects = driver.send(.pause(rule: "office", paused: true, by: "MQTT"), at: 1)
        #expect(Self.pauses(effects) == [])
        #expect(driver.core.paused.isEmpty)
        driver.set([.ssid: "Office"], at: 2)
        #expect(driver.firings == ["office:enter@2"])
    }

    @Test func aPauseIsJournaledAndSurvivesARestart() throws {
        var first = DaemonCoreDriver(rules: Self.rules())
        let effects = first.send(.pause(rule: "office", paused: true, by: "MQTT"), at: 2)
        // One journal line, not a rewrite of state.json.
        #expect(effects.contains { if case .appendJournal(let line) = $0 { line.paused != nil } else { false } })
        #expect(first.files.restored?.paused["office"]?.by == "MQTT")

        var second = DaemonCoreDriver(
            rules: Self.rules(), files: first.files, wall: first.startWall.secondsSince1970 + 60)
        #expect(second.core.pausedRules.map(\.rule) == ["office"])
        #expect(second.core.paused["office"]?.since == first.startWall + .seconds(2))
        // The start's snapshot holds it, in state.json itself.
        let state = try #require(second.files.stateFile.map { String(decoding: $0, as: UTF8.self) })
        #expect(state.contains(#""paused":{"office":{"by":"MQTT","since":"#), "\(state)")
        second.set([.ssid: "Office"], at: 1)
        #expect(second.firings.isEmpty)

        // Resumed, the next process runs it.
        second.send(.pause(rule: "office", paused: false, by: "MQTT"), at: 2)
        var third = DaemonCoreDriver(
            rules: Self.rules(), files: second.files, wall: second.startWall.secondsSince1970 + 60)
        #expect(third.core.paused.isEmpty)
        #expect(!String(decoding: third.files.stateFile ?? [], as: UTF8.self).contains("paused"))
        third.set([.ssid: "Home"], at: 1)
        #expect(third.firings == ["office:exit@1"])
    }

    @Test func aStateFileFromBeforeCommandsLoadsWithNothingPaused() throws {
        let old = Array(#"{"inflight":[],"next_firing":3,"rules":{},"version":1}"#.utf8)
        let restored = try #require(PersistedState.restore(stateFile: old, journal: []).state)
        #expect(restored.paused.isEmpty)
        #expect(restored.nextFiringNumber == 3)
        // A pause it cannot read is left out, not the state with it.
        let odd = Array(#"{"next_firing":1,"paused":{"a":{"by":"MQTT","since":5},"b":{"by":7}},"version":1}"#.utf8)
        let state = try #require(PersistedState.restore(stateFile: odd, journal: []).state)
        #expect(state.paused == ["a": PersistedState.SavedPause(by: "MQTT", since: 5)])
    }

    @Test func aReloadResumesRulesItRemovesAndEveryRuleOnceCommandsAreOff() {
        var driver = DaemonCoreDriver(rules: Self.rules(names: ["office", "desk"]))
        driver.send(.pause(rule: "office", paused: true, by: "MQTT"), at: 1)
        driver.send(.pause(rule: "desk", paused: true, by: "MQTT"), at: 1)

        let kept = driver.send(.reloaded(DaemonCoreDriver.rules(Self.rules(names: ["office", "desk"]))), at: 2)
        #expect(Self.pauses(kept) == [], "an unchanged pause set is not announced again")
        let removed = driver.send(.reloaded(DaemonCoreDriver.rules(Self.rules(names: ["office"]))), at: 3)
        #expect(Self.pauses(removed) == [["office"]])
        #expect(driver.files.restored?.paused.keys.sorted() == ["office"])

        let off = driver.send(.reloaded(DaemonCoreDriver.rules(Self.rules(commands: false))), at: 4)
        #expect(Self.pauses(off) == [[]])
        #expect(driver.core.paused.isEmpty)
        driver.set([.ssid: "Office"], at: 5)
        #expect(driver.firings == ["office:enter@5"])
    }

    /// A restart with a rule set that no longer takes commands starts with nothing paused.
    @Test func aRestartWithoutCommandsForgetsThePauses() {
        var first = DaemonCoreDriver(rules: Self.rules())
        first.send(.pause(rule: "office", paused: true, by: "MQTT"), at: 1)
        var second = DaemonCoreDriver(
            rules: Self.rules(commands: false), files: first.files, wall: first.startWall.secondsSince1970 + 5)
        #expect(second.core.paused.isEmpty)
        #expect(second.files.restored?.paused.isEmpty == true)
        second.set([.ssid: "Office"], at: 1)
        #expect(second.firings == ["office:enter@1"])
    }
}
