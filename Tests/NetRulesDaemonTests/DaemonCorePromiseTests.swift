import Foundation
import NetRulesCore
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// Issue 34: what a rule's state survives. A restart within one boot keeps confirmed truths (no
/// double `enter`); a new boot forgets them but keeps `once_per`/`cooldown` windows; an edit that
/// keeps a rule's name and condition keeps all of it, one that changes the condition keeps the
/// windows and evaluates the new condition.
@Suite(.timeLimit(.minutes(1)))
struct DaemonCorePromiseTests {
    static let rules = """
        version: 1
        rules:
          - name: vpn
            when: { not: { ssid: Home } }
            do:
              - run: vpn up
          - name: office-check-in
            when: { ssid: Office }
            once_per: day
            do:
              - run: check in
        """

    /// The same rules with every rule's description and actions edited, and `for:` added.
    static let edited = """
        version: 1
        rules:
          - name: vpn
            description: start the VPN away from home
            when: { not: { ssid: Home } }
            do:
              - run: vpn up --quiet
          - name: office-check-in
            description: once a day
            when: { ssid: Office }
            once_per: day
            do:
              - run: check in --verbose
        """

    /// At the office: both rules fired once, and the daemon stops there.
    static func atTheOffice() -> DaemonCoreDriver {
        var first = DaemonCoreDriver(rules: rules)
        first.set([.ssid: "Office"], at: 1)
        #expect(first.firings.sorted() == ["office-check-in:enter@1", "vpn:enter@1"])
        // Their actions ran: nothing is in flight for the next start to resume.
        for firing in first.submitted { first.report(firing, action: 0, at: 2) }
        return first
    }

    @Test func aRestartWithinOneBootFiresNothingAgain() {
        let first = Self.atTheOffice()
        var second = DaemonCoreDriver(
            rules: Self.rules, files: first.files, wall: first.startWall.secondsSince1970 + 60)
        second.set([.ssid: "Office"], at: 1)
        #expect(second.firings.isEmpty)
    }

    @Test func aNewBootFiresTheLevelRuleAgainButNotTheDailyCheckIn() {
        let first = Self.atTheOffice()
        var second = DaemonCoreDriver(
            rules: Self.rules, files: first.files, wall: first.startWall.secondsSince1970 + 600, bootID: "boot-2")
        second.set([.ssid: "Office"], at: 1)
        #expect(second.firings == ["vpn:enter@1"], "the VPN is started again; the check-in waits for tomorrow")
        // The new boot's id is saved: a restart within it fires nothing.
        for firing in second.submitted { second.report(firing, action: 0, at: 2) }
        var third = DaemonCoreDriver(
            rules: Self.rules, files: second.files, wall: first.startWall.secondsSince1970 + 700, bootID: "boot-2")
        third.set([.ssid: "Office"], at: 1)
        #expect(third.firings.isEmpty)
    }

    @Test func aStateFileWithoutABootIDCountsAsThisBoot() {
        let first = Self.atTheOffice()
        var files = first.files
        var state = files.restored!
        state.bootID = nil
        files.stateFile = state.encoded()
        files.journal = []
        var second = DaemonCoreDriver(
            rules: Self.rules, files: files, wall: first.startWall.secondsSince1970 + 60, bootID: "boot-2")
        second.set([.ssid: "Office"], at: 1)
        #expect(second.firings.isEmpty)
    }

    @Test func editingDescriptionsAndActionsKeepsWindowsAndTruths() {
        var driver = Self.atTheOffice()
        let before = driver.firings.count
        driver.send(.reloaded(DaemonCoreDriver.rules(Self.edited)), at: 10)
        #expect(driver.firings.count == before)
        // The next edge of the day: the check-in does not fire a second time.
        driver.set([.ssid: "Home"], at: 20)
        driver.set([.ssid: "Office"], at: 30)
        #expect(Array(driver.firings.dropFirst(before)) == ["vpn:enter@30"], "only the VPN, on its new edge")
        #expect(driver.core.engine.lastReload.kept == 2)
    }

    @Test func anEditSurvivesARestartToo() {
        let first = Self.atTheOffice()
        var second = DaemonCoreDriver(
            rules: Self.edited, files: first.files, wall: first.startWall.secondsSince1970 + 60)
        second.set([.ssid: "Home"], at: 1)
        second.set([.ssid: "Office"], at: 2)
        #expect(second.firings == ["vpn:enter@2"])
    }

    @Test func aNewConditionKeepsTheWindowAndFiresOnlyWhereItsTruthDiffers() {
        var driver = Self.atTheOffice()
        let before = driver.firings.count
        let changed = Self.rules.replacingOccurrences(
            of: "when: { ssid: Office }", with: "when: { ssid: [Office, Office-5G] }")
        driver.send(.reloaded(DaemonCoreDriver.rules(changed)), at: 10)
        // Still true at the office: no second enter, and the day's window holds.
        #expect(driver.firings.count == before)
        #expect(driver.core.engine.lastReload.conditionChanged == ["office-check-in"])
        #expect(
            DaemonCore.describe(driver.core.engine.lastReload)
                == "; kept windows of 2 rules, reset 1: condition changed (office-check-in)")
        driver.set([.ssid: nil], at: 20)
        driver.set([.ssid: "Office-5G"], at: 30)
        #expect(driver.firings.count == before, "once_per: day kept across the condition's change")
    }

    /// A firing none of whose actions reported runs after a restart only while its rule is still in
    /// the state it fired for: an `enter` queued behind a later `exit` is not resumed, nor anything
    /// from before a new boot.
    @Test func aFiringThatNeverStartedIsResumedOnlyWhileItsRuleIsStillInThatState() {
        let rules = """
            version: 1
            rules:
              - name: office
                when: { ssid: Office }
                on: [enter, exit]
                do:
                  - run: echo edge
            """
        var first = DaemonCoreDriver(rules: rules)
        first.set([.ssid: "Office"], at: 1)
        first.set([.ssid: "Home"], at: 2)
        #expect(first.firings == ["office:enter@1", "office:exit@2"])
        // Neither action reported: the enter is stale (the rule is false now), the exit is not.
        let second = DaemonCoreDriver(rules: rules, files: first.files, wall: first.startWall.secondsSince1970 + 60)
        #expect(second.firings == ["office:exit@0"])

        var rebooted = DaemonCoreDriver(
            rules: rules, files: first.files, wall: first.startWall.secondsSince1970 + 60, bootID: "boot-2")
        #expect(rebooted.firings.isEmpty)
        rebooted.set([.ssid: "Home"], at: 1)
        #expect(rebooted.firings.isEmpty, "false at first after the boot: nothing fires")
    }
}
