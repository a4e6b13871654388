import Glibc
import NetRulesTesting
import Testing

/// Scenario 4a of issue 6: a daemon killed with SIGKILL in the middle of a `for:` hold.
///
/// The state dir must carry the hold and each rule's last truth across the crash: the hold
/// completes at its original deadline and fires once, and nothing that already fired repeats.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct RestartTests {
    @Test func holdSurvivesSIGKILLAndFiresOnceAtItsOriginalDeadline() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let hook = try ActionRecord.script(in: testbed)
            let arrived = ActionRecord(path: testbed.path("arrived"))
            let seen = ActionRecord(path: testbed.path("seen"))
            let roamed = ActionRecord(path: testbed.path("roamed"))
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                rules:
                  - name: arrived
                    when: { ssid: Office }
                    for: 4s
                    do:
                      \(arrived.action(hook: hook))
                  # Fires at once on the same change: proves the daemon saw it (and started the hold).
                  - name: seen
                    when: { ssid: Office }
                    do:
                      \(seen.action(hook: hook))
                  - name: roamed
                    when: { bssid: "22:22:22:22:22:22" }
                    do:
                      \(roamed.action(hook: hook))

                """, to: "restart.yaml")
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            let first = try await testbed.startDaemon(rules: [rules])

            let changed = realtimeNanoseconds()
            let changedAt = ContinuousClock.now
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            try await eventually("the daemon to see the change") { seen.entries.count == 1 }
            try await wait(until: changedAt + .milliseconds(1500))
            #expect(arrived.entries.isEmpty, "the 4 s hold completed early")
            first.killAndReap()
            #expect(first.termination == .signaled(SIGKILL))

            _ = try await testbed.startDaemon(rules: [rules])
            let ready = realtimeNanoseconds()
            try await eventually("the held enter after the restart") { arrived.entries.count == 1 }
            let fired = try #require(arrived.entries.first).nanoseconds
            let deadline = changed + 4_000_000_000
            #expect(fired >= deadline - 100_000_000, "fired \((deadline - fired) / 1_000_000) ms before the deadline")
            // Had the restart begun a fresh 4 s hold, it would fire 4 s after READY; the original
            // deadline (or at once, if it passed while the daemon was down) is the contract.
            let latest = max(deadline, ready) + 1_000_000_000
            #expect(
                fired <= latest, "fired \((fired - max(deadline, ready)) / 1_000_000) ms after the original deadline")

            try wifi.report(ssid: "Office", bssid: "22:22:22:22:22:22")
            try await eventually("the roam barrier") { roamed.entries.count == 1 }
            #expect(arrived.entries.count == 1, "the held enter fired \(arrived.entries.count) times")
            #expect(seen.entries.count == 1, "'seen' fired again after the restart: \(seen.edges)")
        }
    }
}
