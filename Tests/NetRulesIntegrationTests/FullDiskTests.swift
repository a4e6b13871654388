import Foundation
@preconcurrency import Glibc
import NetRulesTesting
import Testing

/// The state directory on a full disk, with the real daemon (issue 34): its `--state-dir` is a
/// 1 MiB tmpfs the test fills while a rule fires 25 times a second. At most 3 journal files at any
/// time, one log line for the whole streak (with the file and the errno), one when space returns,
/// and what that line says holds: the saved state is current (a SIGKILL and a restart fire
/// nothing), and the history file holds every firing.
@Suite(
    .timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason),
    .enabled(if: SmallFileSystem.isAvailable, SmallFileSystem.unavailableReason))
struct FullDiskTests {
    @Test func aFullStateDirectoryIsOneLineNoTrailOfJournalFilesAndARecoveryThatHolds() async throws {
        try await Testbed.run { testbed in
            let state = testbed.path("state")
            let disk = try SmallFileSystem(at: state)
            defer { disk.unmount() }
            let wifi = try WiFiPlugin(in: testbed)
            let hook = try ActionRecord.script(in: testbed)
            let office = ActionRecord(path: testbed.path("office"))
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                rules:
                  - name: office
                    when: { ssid: Office }
                    on: [enter, exit]
                    do:
                      \(office.action(hook: hook))

                """, to: "full.yaml")
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            let first = try await testbed.startDaemon(rules: [rules])
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            try await eventually("the first enter") { office.entries.count == 1 }

            #expect(disk.fill() > 900_000)
            let mark = testbed.log.split(separator: "\n").count
            var mostJournalFiles = 0
            for n in 0..<100 {
                try wifi.report(ssid: n % 2 == 0 ? "Home" : "Office", bssid: "11:11:11:11:11:11")
                try await Task.sleep(for: .milliseconds(40))
                mostJournalFiles = max(mostJournalFiles, disk.names().filter { $0.hasPrefix("journal") }.count)
            }
            try await eventually("the firings on the full disk") { office.entries.count > 50 }
            #expect(mostJournalFiles <= 3, "journal files at once: \(mostJournalFiles)")
            #expect(first.termination == nil)
            // The lines naming the state directory since it filled, but the restart's `ready:`.
            func aboutTheStateDirectory() -> [String] {
                testbed.log.split(separator: "\n").dropFirst(mark).filter {
                    $0.contains(state) && !$0.contains("ready: ")
                }.map(String.init)
            }
            let failed = aboutTheStateDirectory()
            #expect(failed.count == 1, "\(failed.joined(separator: "\n"))")
            #expect(
                failed.first?.contains("error netrules.daemon: the state directory '\(state)' is not writable") == true)
            #expect(failed.first?.contains("'write' failed: (28) No space left on device") == true)

            disk.makeRoom()
            for ssid in ["Home", "Office"] {
                try wifi.report(ssid: ssid, bssid: "11:11:11:11:11:11")
                try await Task.sleep(for: .milliseconds(100))
            }
            try await eventually("the recovery line (log: \(testbed.logTail()))") {
                aboutTheStateDirectory().count == 2
            }
            let recovered = try #require(aboutTheStateDirectory().last)
            #expect(
                recovered.contains(
                    "notice netrules.daemon: the state directory '\(state)' is writable again and the saved state is current"
                ),
                "\(recovered)")
            #expect(disk.names().filter { $0.hasPrefix("journal") }.count == 1, "\(disk.names())")

            // The history file holds every firing: those of the full disk were rewritten from memory.
            let socket = ["--socket", testbed.path("no-daemon.sock"), "--state-dir", state, "--limit", "all"]
            // Settled: the last change (to Office) has run, and nothing more came for a second.
            var (ran, changed) = (0, ContinuousClock.now)
            try await eventually("the firings to settle") {
                if office.entries.count != ran { (ran, changed) = (office.entries.count, .now) }
                return office.entries.last?.edge == "enter" && ContinuousClock.now - changed > .seconds(1)
            }
            let kept = try await HistoryEndToEndTests.waitForFirings(socket, "\(ran) firings in the file") {
                $0.filter { $0["dropped"] == nil }.count == ran
            }
            #expect(kept.filter { $0["dropped"] == nil }.count == ran)

            // The saved state is current: after a SIGKILL, the restart knows the rule is true.
            first.killAndReap()
            _ = try await testbed.startDaemon(rules: [rules])
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            try await eventually("the exit after the restart") { office.entries.count == ran + 1 }
            #expect(office.edges.suffix(2) == ["enter", "exit"], "\(office.edges.suffix(4))")
            #expect(aboutTheStateDirectory().count == 2, "\(aboutTheStateDirectory().joined(separator: "\n"))")
        }
    }
}
