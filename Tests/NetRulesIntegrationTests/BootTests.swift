import Foundation
import NetRulesTesting
import Testing

/// Issue 34: a new boot makes the world match the state again. The kernel's boot id is
/// bind-mounted to a new value (in a mount namespace of the daemon's own) between two runs: the
/// VPN-style rule fires `enter` again away from home, the `once_per: day` check-in that fired
/// before does not; a restart within that boot fires nothing.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct BootTests {
    @Test func aNewBootFiresTheLevelRuleAgainAndKeepsTheDailyWindow() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let hook = try ActionRecord.script(in: testbed)
            let vpn = ActionRecord(path: testbed.path("vpn"))
            let checkIn = ActionRecord(path: testbed.path("check-in"))
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                rules:
                  - name: vpn
                    when: { not: { ssid: Home } }
                    do:
                      \(vpn.action(hook: hook))
                  - name: office-check-in
                    when: { ssid: Office }
                    once_per: day
                    do:
                      \(checkIn.action(hook: hook))

                """, to: "rules.yaml")
            /// A boot id of its own for the daemon: `boot_id` bind-mounted in a private mount namespace.
            func booted(_ id: String) throws -> [String] {
                let file = try testbed.write(id + "\n", to: "boot_id-\(id.prefix(8))")
                return [
                    "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                    "mount --bind '\(file)' /proc/sys/kernel/random/boot_id && exec \"$0\" \"$@\"",
                ]
            }
            let first = "0e3a4c1e-8c55-4a4e-9b1f-3f1d6c0a0001"
            let second = "0e3a4c1e-8c55-4a4e-9b1f-3f1d6c0a0002"

            var daemon = try await testbed.startDaemon(rules: [rules], launcher: try booted(first))
            try await eventually("both rules at the first start") {
                vpn.entries.count == 1 && checkIn.entries.count == 1
            }
            #expect(try await testbed.stop(daemon) == .exited(0))

            // A new boot: the VPN is started again; the check-in waits for tomorrow.
            daemon = try await testbed.startDaemon(rules: [rules], launcher: try booted(second))
            try await eventually("the VPN after the new boot") { vpn.entries.count == 2 }
            #expect(testbed.log.contains("new boot: rules start from scratch (windows kept)"), "\(testbed.logTail())")
            try await barrier(testbed, wifi)
            #expect(checkIn.entries.count == 1, "the check-in fired again after the new boot")
            #expect(try await testbed.stop(daemon) == .exited(0))

            // The same boot again: nothing fires.
            daemon = try await testbed.startDaemon(rules: [rules], launcher: try booted(second))
            try await barrier(testbed, wifi)
            #expect(vpn.entries.count == 2, "the VPN fired again within one boot")
            #expect(checkIn.entries.count == 1)
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    /// Waits until the daemon has taken the plugin's facts in (its status shows them), so an action
    /// that would have started has.
    private func barrier(_ testbed: Testbed, _ wifi: WiFiPlugin) async throws {
        try await eventually("the facts in the daemon") { testbed.daemonFacts().contains(#""ssid":"Office""#) }
        try await Task.sleep(for: .milliseconds(500))
    }
}
