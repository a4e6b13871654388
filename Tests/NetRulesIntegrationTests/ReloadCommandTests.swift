import Foundation
import NetRulesCLI
import NetRulesTesting
import Testing

/// `netrules reload` through the control socket (issue 15): a broken file prints its diagnostics,
/// exits 65 and the old rules keep running; a good one reloads.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct ReloadCommandTests {
    static func reload(_ socket: String) async -> (Int32, String, String) {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: ["reload", "--socket", socket], stdout: out, stderr: err,
            environment: ["PATH": "/usr/bin:/bin"], loop: .testLoop)
        return (code, out.text, err.text)
    }

    @Test func aBrokenFileIsRefusedWithItsDiagnosticsAndAGoodOneReloads() async throws {
        try await Testbed.run { testbed in
            let rule = "version: 1\nrules:\n  - { name: one, when: { ssid: A }, do: [ { run: \"true\" } ] }\n"
            let file = try testbed.write(rule, to: "rules.yaml")
            let daemon = try await testbed.startDaemon(rules: [file])
            let socket = testbed.path("control.sock")

            try testbed.write(
                rule + "  - { name: two, when: { sid: B }, do: [ { run: \"true\" } ] }\n", to: "rules.yaml")
            let (refused, refusedOut, refusedErr) = await Self.reload(socket)
            #expect(refused == 65, "\(refusedOut)\(refusedErr)")
            #expect(refusedErr.contains("rules.yaml:4:"), "\(refusedErr)")
            #expect(refusedOut.contains("1 rule already running keep running"), "\(refusedOut)")

            try testbed.write(
                rule + "  - { name: two, when: { ssid: B }, do: [ { run: \"true\" } ] }\n", to: "rules.yaml")
            let (code, out, err) = await Self.reload(socket)
            #expect(code == 0, "\(err)")
            #expect(out == "reloaded: 2 rules running\n")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    @Test func withoutADaemonItSaysSoAndExits1() async {
        let (code, _, err) = await Self.reload("/tmp/netrules-no-such-daemon.sock")
        #expect(code == 1)
        #expect(err.contains("no netrules daemon answered on /tmp/netrules-no-such-daemon.sock"))
    }
}
