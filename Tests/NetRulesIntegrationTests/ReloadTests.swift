import Glibc
import NetRulesTesting
import Testing

/// Scenario 4b/4c of issue 6: reloading on SIGHUP, with a broken file and with an edited rule.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct ReloadTests {
    @Test func brokenFileKeepsTheOldRulesAndLogsThePosition() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let hook = try ActionRecord.script(in: testbed)
            let office = ActionRecord(path: testbed.path("office"))
            let good = """
                version: 1
                \(wifi.observersYAML)
                rules:
                  - name: office
                    when: { ssid: Office }
                    do:
                      \(office.action(hook: hook))

                """
            let rules = try testbed.write(good, to: "rules.yaml")
            try wifi.report(ssid: "Home", bssid: nil)
            let daemon = try await testbed.startDaemon(rules: [rules])

            // An unknown key: a schema error with a known position (line of `whenn`, column 5).
            let broken =
                good + "  - name: typo\n    whenn: { ssid: Office }\n    do:\n      \(office.action(hook: hook))\n"
            let line =
                broken.split(separator: "\n", omittingEmptySubsequences: false)
                .firstIndex { $0.contains("whenn:") }! + 1
            try testbed.write(broken, to: "rules.yaml")
            daemon.send(SIGHUP)
            try await eventually("diagnostics naming rules.yaml:\(line):5 in the log") {
                testbed.log.contains("rules.yaml:\(line):5")
            }
            #expect(daemon.termination == nil, "the daemon exited on a broken reload")

            // The old rule set still runs.
            try wifi.report(ssid: "Office", bssid: nil)
            try await eventually("the old rule to fire") { office.entries.count == 1 }
            #expect(office.edges == ["enter"])

            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    @Test func editingOneRuleKeepsTheStateOfTheOthers() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let hook = try ActionRecord.script(in: testbed)
            let kept = ActionRecord(path: testbed.path("kept"))
            let edited = ActionRecord(path: testbed.path("edited"))
            let editedAgain = ActionRecord(path: testbed.path("edited-v2"))
            let roamed = ActionRecord(path: testbed.path("roamed"))
            func file(editedRecord: ActionRecord, editedSSIDs: String) -> String {
                """
                version: 1
                \(wifi.observersYAML)
                rules:
                  - name: kept
                    when: { ssid: Office }
                    do:
                      \(kept.action(hook: hook))
                  - name: edited
                    when: { ssid: \(editedSSIDs) }
                    do:
                      \(editedRecord.action(hook: hook))
                  - name: roamed
                    when: { bssid: "22:22:22:22:22:22" }
                    do:
                      \(roamed.action(hook: hook))

                """
            }
            // Booting inside the office: each rule's first known value is true, so each enters once.
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            let rules = try testbed.write(file(editedRecord: edited, editedSSIDs: "Office"), to: "rules.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await eventually("both rules to enter at start") {
                kept.entries.count == 1 && edited.entries.count == 1
            }

            let reloadsBefore = testbed.notify.count("RELOADING=1")
            try testbed.write(file(editedRecord: editedAgain, editedSSIDs: "[Office, Office-5G]"), to: "rules.yaml")
            daemon.send(SIGHUP)
            // The edited rule's condition changed but is still true: it keeps its truth (issue 34),
            // so nothing enters again; the reload says what it kept.
            try await eventually("the reload's line") { testbed.log.contains("condition changed (edited)") }
            #expect(testbed.notify.count("RELOADING=1") > reloadsBefore, "no RELOADING=1 on reload")
            #expect(testbed.log.contains("kept windows of 3 rules, reset 1: condition changed (edited)"))

            try wifi.report(ssid: "Office", bssid: "22:22:22:22:22:22")
            try await eventually("the roam barrier") { roamed.entries.count == 1 }
            #expect(kept.entries.count == 1, "the unchanged rule entered again: \(kept.edges)")
            #expect(edited.entries.count == 1)
            #expect(editedAgain.entries.isEmpty, "the edited rule entered again: \(editedAgain.edges)")

            // Its new condition is the one evaluated: Office-5G enters it, with its new action.
            try wifi.report(ssid: "Home", bssid: "33:33:33:33:33:33")
            try wifi.report(ssid: "Office-5G", bssid: "33:33:33:33:33:33")
            try await eventually("the edited rule on its new condition") { editedAgain.entries.count == 1 }
            #expect(kept.entries.count == 1)

            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
