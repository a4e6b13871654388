import Foundation
import NetRulesCLI
import NetRulesTesting
import Testing

/// `netrules history` against the real daemon (issue 15): a firing's run action with its exit
/// status and output, a firing `cooldown:` dropped, and the same history read from the state
/// directory once the daemon has stopped.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct HistoryEndToEndTests {
    static func history(_ arguments: [String]) async -> (code: Int32, stdout: String, stderr: String) {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: ["history"] + arguments, stdout: out, stderr: err, environment: ["PATH": "/usr/bin:/bin"],
            loop: .testLoop)
        return (code, out.text, err.text)
    }

    static func firings(_ arguments: [String]) async throws -> [[String: Any]] {
        let (code, out, err) = await history(["--json"] + arguments)
        guard code == 0 else { throw TestError("history exited \(code): \(err)") }
        return try out.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestError("not a JSON object: \(line)")
            }
            return object
        }
    }

    /// Polls `history --json` until `condition` holds (a failure guard, not a sleep).
    static func waitForFirings(
        _ arguments: [String], _ what: String, _ condition: ([[String: Any]]) -> Bool
    ) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let firings = try await HistoryEndToEndTests.firings(arguments)
            if condition(firings) { return firings }
            guard ContinuousClock.now < deadline else { throw TestError("timed out waiting for \(what): \(firings)") }
            try await Task.sleep(for: pollInterval)
        }
    }

    @Test func aRealFiringAndADroppedOneShowFromTheDaemonAndThenFromTheStateDirectory() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                rules:
                  - name: office-hook
                    when: { ssid: Office }
                    cooldown: 1h
                    do:
                      - run: "echo checked in at {{ssid}}; exit 0"

                """, to: "history.yaml")
            try wifi.report(ssid: "Office", bssid: "00:11:22:33:44:55")
            let daemon = try await testbed.startDaemon(rules: [rules])
            let socket = ["--socket", testbed.path("control.sock")]

            let fired = try await HistoryEndToEndTests.waitForFirings(socket, "the run action's outcome") { firings in
                let outcome = ((firings.first?["actions"] as? [[String: Any]])?.first?["outcome"] as? [String: Any])
                return outcome?["status"] as? String == "ok"
            }
            #expect(fired.count == 1)
            let firing = try #require(fired.first)
            #expect(firing["version"] as? Int == 1)
            #expect(firing["rule"] as? String == "office-hook")
            #expect(firing["edge"] as? String == "enter")
            #expect((firing["facts"] as? [String: Any])?["ssid"] as? String == "Office")
            let action = try #require((firing["actions"] as? [[String: Any]])?.first)
            #expect(action["type"] as? String == "run")
            #expect(action["rendered"] as? String == "echo checked in at 'Office'; exit 0")
            let outcome = try #require(action["outcome"] as? [String: Any])
            #expect(outcome["exit_status"] as? Int == 0)
            #expect((outcome["output"] as? String)?.contains("stdout: checked in at Office") == true)
            #expect(outcome["duration_ms"] is Double || outcome["duration_ms"] is Int)

            // Leaving and coming back within the hour: the second enter is dropped by the cooldown.
            try wifi.report(ssid: "Street", bssid: "66:77:88:99:aa:bb")
            try await eventually("the daemon to see the street") { testbed.daemonFacts().contains("Street") }
            try wifi.report(ssid: "Office", bssid: "00:11:22:33:44:55")
            let both = try await HistoryEndToEndTests.waitForFirings(socket, "the dropped enter") { $0.count == 2 }
            let dropped = try #require(both.last?["dropped"] as? [String: Any])
            #expect(dropped["reason"] as? String == "cooldown")
            #expect(dropped["until"] is String)
            #expect((both.last?["actions"] as? [Any])?.isEmpty == true)

            let text = await HistoryEndToEndTests.history(socket)
            #expect(text.code == 0)
            #expect(text.stdout.contains("  office-hook  enter\n"), "\(text.stdout)")
            #expect(text.stdout.contains("→ exit status 0 in "), "\(text.stdout)")
            #expect(text.stdout.contains("  dropped: cooldown (until "), "\(text.stdout)")
            #expect(text.stderr == "")

            let live = await HistoryEndToEndTests.history(["--json"] + socket)
            #expect(try await testbed.stop(daemon) == .exited(0))

            // No daemon now: the same firings, from the history file in the state directory.
            let fallback = await HistoryEndToEndTests.history(
                ["--json", "--state-dir", testbed.path("state")] + socket)
            #expect(fallback.code == 0)
            #expect(fallback.stdout == live.stdout)
            #expect(
                fallback.stderr.contains(
                    "no netrules daemon answered on \(testbed.path("control.sock")): no such socket; history read from "
                        + testbed.path("state") + "/history.jsonl"), "\(fallback.stderr)")
            let newest = await HistoryEndToEndTests.history(
                ["--json", "--limit", "1", "--rule", "office-hook", "--state-dir", testbed.path("state")] + socket)
            #expect(newest.stdout.split(separator: "\n").count == 1)
            #expect(newest.stdout.contains(#""dropped":{"reason":"cooldown""#))
        }
    }
}
