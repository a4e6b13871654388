import Foundation
import NetRulesCore
import NetRulesTesting
import Testing

/// Issue 24, item 10: an observer that cannot start (no ICMP socket: the daemon runs without
/// CAP_NET_RAW, and the namespace's `ping_group_range` refuses datagram ICMP, as for a per-user
/// daemon) is named with its hosts in the log, counted as failed by `status` and `doctor`, and
/// the rules that wait for it are named.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct ObserverFailureTests {
    /// Runs the daemon as root without CAP_NET_RAW (util-linux's setpriv), so no ICMP socket opens.
    static let withoutRawSockets = ["/usr/bin/setpriv", "--bounding-set", "-net_raw", "--inh-caps", "-net_raw", "--"]

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs util-linux's setpriv"))
    func anObserverThatCannotStartIsNamedCountedAndItsRulesListed() async throws {
        try await Testbed.run { testbed in
            let rules = try testbed.write(
                """
                version: 1
                hosts:
                  loop: { address: \(Testbed.peerAddress), interval: 1s, timeout: 200ms, tries: 1 }
                rules:
                  - name: loop-up
                    when: { reachable: loop }
                    do:
                      - run: "true"

                """, to: "loop.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules], launcher: Self.withoutRawSockets)
            let socket = testbed.path("control.sock")
            try await eventually("status to count the failed observer (log: \(testbed.logTail()))") {
                let text = try TestNamespace.shell(DaemonProcess.executable, "status", "--socket", socket)
                return text.contains("observers: 1 failed")
            }
            let text = try TestNamespace.shell(DaemonProcess.executable, "status", "--socket", socket)
            #expect(text.contains("probes: cannot probe host 'loop' by ICMP"), "\(text)")
            #expect(text.contains("unknown: hosts.loop"), "\(text)")
            #expect(text.contains("cannot become true: loop-up"), "\(text)")

            let json = try TestNamespace.shell(DaemonProcess.executable, "status", "--json", "--socket", socket)
            let document = try JSONValue.parse(Array(json.utf8))
            guard case .array(let failed)? = document.member("observers")?.member("failed") else {
                Issue.record("no observers.failed in \(json)")
                return
            }
            #expect(failed.count == 1)
            #expect(failed.first?.member("name") == .string("probes"))
            #expect(failed.first?.member("rules") == .array([.string("loop-up")]))
            #expect(failed.first?.member("facts") == .array([.string("hosts.loop")]))

            // doctor exits 1 on an error check, so `shell` throws with the output in its message.
            let report: String
            do {
                report = try TestNamespace.shell(
                    DaemonProcess.executable, "doctor", "--socket", socket, "--state-dir", testbed.path("state"))
            } catch {
                report = "\(error)"
            }
            #expect(report.contains("observers") && report.contains("'probes' stopped"), "\(report)")

            let log = testbed.log
            #expect(log.contains("cannot probe host 'loop' by ICMP"), "\(testbed.logTail())")
            #expect(log.contains("1 rule cannot become true until it is back: 'loop-up'"), "\(testbed.logTail())")
            #expect(!log.contains("HostDefinition("), "a Swift debug description reached the log")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
