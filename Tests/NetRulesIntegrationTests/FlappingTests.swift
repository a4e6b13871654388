import Foundation
import NetRulesTesting
import Testing

/// Scenario 5 of issue 6: a link toggled 1,000 times in a few seconds.
///
/// `for:` and `cooldown:` must bound the firings, the daemon must stay up and responsive, and
/// its resident memory must not grow with the number of events.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct FlappingTests {
    @Test func thousandTogglesLeaveMemoryFlatAndFiringsBounded() async throws {
        try await Testbed.run { testbed in
            let hook = try ActionRecord.script(in: testbed)
            let held = ActionRecord(path: testbed.path("held"))
            let cooled = ActionRecord(path: testbed.path("cooled"))
            let rules = try testbed.write(
                """
                version: 1
                rules:
                  - name: link-held
                    when: { interface: { name: \(Testbed.link), state: up } }
                    on: [enter, exit]
                    for: 1s
                    do:
                      \(held.action(hook: hook))
                  - name: link-cooled
                    when: { interface: { name: \(Testbed.link), state: up } }
                    on: [enter, exit]
                    cooldown: 1h
                    do:
                      \(cooled.action(hook: hook))

                """, to: "flap.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await eventually("both rules to enter at start") {
                held.entries.count == 1 && cooled.entries.count == 1
            }
            let before = try daemon.residentKilobytes()

            // 1,000 toggles and one more, so the link ends down and the held rule owes one exit.
            let commands = (0..<1001).map { "link set \(Testbed.link) \($0 % 2 == 0 ? "down" : "up")" }
            let batch = try testbed.write(commands.joined(separator: "\n") + "\n", to: "flap.batch")
            let clock = ContinuousClock()
            let started = clock.now
            let flapStarted = realtimeNanoseconds()
            try TestNamespace.shell("ip", "-n", testbed.host.name, "-batch", batch)
            let flapTime = clock.now - started

            try await eventually("the held exit after the flapping", timeout: .seconds(30)) { held.entries.count == 2 }
            #expect(daemon.termination == nil, "the daemon died: \(String(describing: daemon.termination))")
            let after = try daemon.residentKilobytes()
            print("flapping: 1,001 toggles in \(flapTime); VmRSS \(before) kB → \(after) kB")
            #expect(after - before < 5 * 1024, "VmRSS grew from \(before) kB to \(after) kB")
            #expect(held.edges == ["enter", "exit"])
            // Not "1 s after the last toggle": `up` means IFF_UP and IFF_RUNNING, and the kernel
            // raises IFF_RUNNING (carrier) through linkwatch, which runs at most once a second, so
            // during the flood the link may be operationally down from the first toggle on.
            #expect(
                held.entries.last!.nanoseconds - flapStarted >= 1_000_000_000, "the exit did not wait for `for: 1s`")
            #expect(cooled.edges == ["enter"], "the cooldown let firings through: \(cooled.edges)")

            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
