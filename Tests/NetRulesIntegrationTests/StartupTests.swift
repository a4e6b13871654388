import Foundation
import NetRulesTesting
import Testing

/// The daemon's start-up contract: invalid rules stop it with exit 65 and positioned diagnostics.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
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
            #expect(
                !FileManager.default.fileExists(atPath: testbed.path("control.sock")),
                "the control socket bound before the rules were read is removed")
        }
    }
}

/// A state file the daemon cannot use never stops it from starting (issue 10, item 2: a saved
/// cooldown of 999999d used to crash every start).
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct UnusableStateFileTests {
    @Test(arguments: [
        #"{"version":1,"rules":{"r":{"fingerprint":"x","confirmed":true,"cooldown_until":1e300,"hold":null}},"inflight":[],"next_firing":1}"#,
        #"{"version":1,"rules":{"r":{"fingerprint":"x","confirmed":true,"cooldown_until":null,"hold":{"deadline":-1e30,"target":true}}},"inflight":[],"next_firing":1}"#,
        #"{"version":1,"rules":{"r":{"fingerprint":7}}}"#,
        "not json at all",
    ])
    func anUnusableStateFileIsSetAsideAndTheDaemonStarts(contents: String) async throws {
        try await Testbed.run { testbed in
            let rules = try testbed.write(
                """
                version: 1
                rules:
                  - name: r
                    when: { ssid: Office }
                    cooldown: 8h
                    do:
                      - run: "true"

                """, to: "rules.yaml")
            try testbed.write(contents, to: "state/state.json")
            let daemon = try await testbed.startDaemon(rules: [rules])
            #expect(testbed.log.contains("moved it to"), "\(testbed.log)")
            #expect(!testbed.log.contains("DecodingError"), "a Swift debug dump reached the log")
            let names = try FileManager.default.contentsOfDirectory(atPath: testbed.path("state"))
            #expect(names.contains { $0.hasPrefix("state.json.bad-") }, "\(names)")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}

/// One daemon per state directory, and none on a state directory it cannot write (issue 10,
/// items 5 and 7): refused at once with exit 1 and a sentence, never "ready".
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct ExclusiveStateDirectoryTests {
    static let rules = """
        version: 1
        rules:
          - name: r
            when: { ssid: Office }
            do:
              - run: "true"

        """

    @Test func aSecondDaemonOnTheSameStateDirectoryExitsAtOnceNamingTheFirst() async throws {
        try await Testbed.run { testbed in
            let rules = try testbed.write(Self.rules, to: "rules.yaml")
            let first = try await testbed.startDaemon(rules: [rules])
            let second = try await testbed.startDaemon(rules: [rules], awaitReady: false)
            #expect(try await second.waitForExit(timeout: .seconds(10)) == .exited(1))
            #expect(
                testbed.log.contains("another netrules daemon (PID \(first.pid)) is using the state directory"),
                "\(testbed.log)")
            #expect(testbed.notify.count("READY=1") == 1)
            #expect(first.termination == nil, "the first daemon stopped")
            #expect(try await testbed.stop(first) == .exited(0))
        }
    }

    @Test func aReadOnlyStateDirectoryIsRefusedBeforeReady() async throws {
        try await Testbed.run { testbed in
            let rules = try testbed.write(Self.rules, to: "rules.yaml")
            let state = testbed.path("state")
            // A read-only file system, as a mount would make it (root ignores permission bits).
            #expect(system("mount -t tmpfs -o ro,size=1m netrules-test '\(state)'") == 0)
            defer { _ = system("umount '\(state)'") }
            let daemon = try await testbed.startDaemon(rules: [rules], awaitReady: false)
            #expect(try await daemon.waitForExit(timeout: .seconds(10)) == .exited(1))
            #expect(testbed.log.contains("is not usable (Read-only file system)"), "\(testbed.log)")
            #expect(testbed.notify.count("READY=1") == 0)
        }
    }

    /// Under systemd's watchdog (`WatchdogSec=`) the daemon's loop pings every half timeout; a
    /// `WATCHDOG_PID` of another process (a child that inherited it) means no watchdog.
    @Test func theLoopPingsSystemdsWatchdogEveryHalfTimeout() async throws {
        try await Testbed.run { testbed in
            let rules = try testbed.write("version: 1\nrules: []\n", to: "empty.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules], environment: ["WATCHDOG_USEC": "400000"])
            let before = testbed.notify.count("WATCHDOG=1")
            try await Task.sleep(for: .seconds(1))
            let pings = testbed.notify.count("WATCHDOG=1") - before
            #expect((3...7).contains(pings), "\(pings) pings in 1 s at a 400 ms timeout")
            #expect(try await testbed.stop(daemon) == .exited(0))

            let other = try await testbed.startDaemon(
                rules: [rules], environment: ["WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"])
            let quiet = testbed.notify.count("WATCHDOG=1")
            try await Task.sleep(for: .milliseconds(800))
            #expect(testbed.notify.count("WATCHDOG=1") == quiet)
            #expect(try await testbed.stop(other) == .exited(0))
        }
    }
}
