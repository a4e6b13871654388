import NetRulesTesting
import Testing

/// The daemon's start-up contract: invalid rules stop it with exit 65 and positioned diagnostics.
@Suite(.serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct StartupTests {
    @Test func invalidRulesExitWith65BeforeReady() async throws {
        try await Testbed.run { testbed in
            let rules = try testbed.write(
                """
                version: 1
                rules:
                  - name: typo
                    when: { sid: Office }
                    do:
                      - run: "true"

                """, to: "invalid.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules], awaitReady: false)
            #expect(try await daemon.waitForExit() == .exited(65))
            #expect(testbed.log.contains("invalid.yaml:4:"), "no positioned diagnostic:\n\(testbed.log)")
            #expect(testbed.notify.count("READY=1") == 0)
        }
    }
}
