import Foundation
import Glibc
import NetRulesTesting
import Testing

/// Issue 34, point 4: a plugin fact toggled 2,000 times in 2 s against a rule running `sleep 0.1`.
/// The firings coalesce while the action runs, so at most 3 runs start after the burst; SIGTERM
/// during a burst starts no run, and the daemon exits soon after its running action ends.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct BoundedFiringsTests {
    /// The rule file, the record, and the file whose creation starts the burst; the plugin writes
    /// the burst's end (CLOCK_REALTIME nanoseconds) to `end`.
    static func setUp(in testbed: Testbed) throws -> (rules: String, record: ActionRecord, go: String, end: String) {
        let hook = try ActionRecord.script(in: testbed)
        let record = ActionRecord(path: testbed.path("runs"))
        let go = testbed.path("go")
        let end = testbed.path("burst-end")
        let plugin = try testbed.write(
            """
            #!/usr/bin/python3
            import os, sys, time
            def say(ssid):
                sys.stdout.write('{"ssid": "%s"}\\n' % ssid)
                sys.stdout.flush()
            say("B")
            while not os.path.exists("\(go)"):
                time.sleep(0.01)
            start = time.monotonic()
            for i in range(2000):
                say("A" if i % 2 == 0 else "B")
                time.sleep(max(0, start + (i + 1) / 1000 - time.monotonic()))
            say("C")
            with open("\(end).tmp", "w") as f:
                f.write(str(time.time_ns()))
            os.rename("\(end).tmp", "\(end)")
            time.sleep(3600)

            """, to: "toggle.py", executable: true)
        let rules = try testbed.write(
            """
            version: 1
            observers:
              - { name: toggle, command: ["\(plugin)"], provides: [ssid] }
            rules:
              - name: toggled
                when: { ssid: A }
                on: [enter, exit]
                do:
                  - run: "\(hook) \(record.path) && sleep 0.1"

            """, to: "toggle.yaml")
        return (rules, record, go, end)
    }

    static func burstEnd(_ path: String) -> Int64? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int64($0) }
    }

    @Test func twoThousandTogglesInTwoSecondsLeaveAtMostThreeRuns() async throws {
        try await Testbed.run { testbed in
            let (rules, record, go, end) = try Self.setUp(in: testbed)
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await Task.sleep(for: .milliseconds(300))
            _ = try testbed.write("", to: "go")
            #expect(FileManager.default.fileExists(atPath: go))
            try await eventually("the burst's end", timeout: .seconds(20)) { Self.burstEnd(end) != nil }
            // The burst ends for the daemon when it has taken the last update in (`C`, false like
            // `B`): on a loaded machine it reads the pipe's backlog later than the plugin wrote it.
            try await eventually("the burst's last update in the daemon", timeout: .seconds(20)) {
                testbed.daemonFacts().contains(#""ssid":"C""#)
            }
            let ended = realtimeNanoseconds()
            // Quiet for 1 s: nothing is left to run.
            var count = -1
            for _ in 0..<30 {
                try await Task.sleep(for: .seconds(1))
                if record.entries.count == count { break }
                count = record.entries.count
            }
            let after = record.entries.filter { $0.nanoseconds > ended }
            print("bounded firings: \(record.entries.count) runs, \(after.count) after the burst")
            #expect(after.count <= 3, "\(after.count) runs after the burst: \(after.map(\.edge))")
            #expect(record.entries.count >= 1)
            #expect(daemon.termination == nil)
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    @Test func sigtermDuringABurstStartsNoRunAndExitsSoonAfterTheRunningOne() async throws {
        try await Testbed.run { testbed in
            let (rules, record, _, _) = try Self.setUp(in: testbed)
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await Task.sleep(for: .milliseconds(300))
            _ = try testbed.write("", to: "go")
            try await eventually("a run during the burst", timeout: .seconds(10)) { !record.entries.isEmpty }
            try await Task.sleep(for: .milliseconds(250))
            let signalled = realtimeNanoseconds()
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit(timeout: .seconds(20)) == .exited(0))
            let exited = realtimeNanoseconds()
            // A run records itself from its child's first line: one whose spawn had begun when the
            // signal arrived (the daemon reads the signal a moment after it is sent, later on a
            // loaded machine) may record just after it; none is started after that, and none
            // queued behind it ever is.
            let late = record.entries.filter { $0.nanoseconds > signalled }
            #expect(late.count <= 1, "\(late.count) runs started after SIGTERM")
            let lastStart = record.entries.map(\.nanoseconds).max() ?? signalled
            // The running action ends about 0.1 s after it started (or at the signal).
            let actionEnd = max(lastStart + 100_000_000, signalled)
            let seconds = Double(exited - actionEnd) / 1e9
            print("bounded firings: exited \(seconds) s after the running action ended")
            #expect(seconds < 2, "exited \(seconds) s after the running action ended")
        }
    }
}
