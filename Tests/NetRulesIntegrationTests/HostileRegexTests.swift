import Foundation
import Glibc
import NetRulesCLI
import NetRulesTesting
import Testing

/// Issue 10, item 3: `ssid: { matches: "^(a+)+$" }` with an SSID of twenty `a`s and a `b` held the
/// daemon at full CPU for over a minute; `status` timed out and SIGTERM was ignored.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct HostileRegexTests {
    @Test func aCatastrophicPatternDoesNotStallTheDaemon() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let matched = testbed.path("matched")
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                rules:
                  - name: nested
                    when: { ssid: { matches: "^(a+)+$" } }
                    do:
                      - write: { path: \(matched), content: "{{ssid}}" }
                  - name: starred
                    when: { ssid: { matches: "(?:(?:(?:(?:a*)*)*)*)*b" } }
                    do:
                      - write: { path: \(matched)-b, content: "{{ssid}}" }

                """, to: "regex.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            let hostile = String(repeating: "a", count: 30) + "b"
            try wifi.report(ssid: hostile, bssid: "11:11:11:11:11:11")
            let asked = ContinuousClock.now
            try await eventually("the second rule to fire") { FileManager.default.fileExists(atPath: matched + "-b") }
            let out = BufferedOutputSink()
            let err = BufferedOutputSink()
            let code = await NetRulesCommandLine.run(
                arguments: ["status", "--json", "--socket", testbed.path("control.sock")], stdout: out,
                stderr: err, environment: ["PATH": "/usr/bin:/bin"], loop: .testLoop)
            #expect(code == 0, "\(err.text)")
            #expect(out.text.contains(hostile), "\(out.text)")
            #expect(ContinuousClock.now - asked < .seconds(5))
            #expect(!FileManager.default.fileExists(atPath: matched), "'^(a+)+$' matched an SSID ending in b")
            let stopping = ContinuousClock.now
            #expect(try await testbed.stop(daemon) == .exited(0))
            #expect(ContinuousClock.now - stopping < .seconds(5))
        }
    }
}
