import NetRulesActions
import NetRulesCLI
import Testing

/// `netrules status` shows what the daemon's webhook outbox holds, in text and in `--json`
/// (issue 21, row 6), through a real control socket to a fake daemon.
@Suite(.timeLimit(.minutes(1)))
struct StatusOutboxTests {
    static func status(_ arguments: [String], outbox: OutboxSize?) async throws -> CommandTests.Outcome {
        let fake = ControlServerTests.fake()
        await fake.setOutbox(outbox)
        let fixture = try await ControlFixture.start(fake)
        let outcome = await CommandTests.run(
            ["status", "--socket", fixture.path] + arguments, environment: [:])
        try await fixture.stop()
        return outcome
    }

    @Test func theTextEndsWithTheOutboxSize() async throws {
        let outcome = try await Self.status([], outbox: OutboxSize(pending: 37, pendingBytes: 25_395, failed: 1_000))
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout == """
                source: daemon
                ip           unknown
                gateway      none
                gateway.mac  unknown
                gateway6     unknown
                dns          1.1.1.1, 9.9.9.9
                network      wired
                ssid         Office
                bssid        unknown
                signal       unknown
                frequency    unknown
                interface    unknown
                x.y          unknown
                outbox: 37 pending (24.8 KiB), 1000 failed

                """)
    }

    @Test func theJSONAddsAnOutboxObjectAfterTheFacts() async throws {
        let outcome = try await Self.status(["--json"], outbox: OutboxSize(pending: 2, pendingBytes: 1_180, failed: 0))
        #expect(outcome.code == 0)
        #expect(
            outcome.stdout
                == #"{"version":1,"facts":{"dns":["1.1.1.1","9.9.9.9"],"gateway":null,"network":"wired","ssid":"Office"},"#
                + #""unknown":["x.y"],"outbox":{"pending":2,"pending_bytes":1180,"failed":0}}"# + "\n")
    }

    @Test func aDaemonThatDoesNotSayShowsNoOutbox() async throws {
        let text = try await Self.status([], outbox: nil)
        #expect(!text.stdout.contains("outbox"))
        let json = try await Self.status(["--json"], outbox: nil)
        #expect(!json.stdout.contains("outbox"))
        #expect(json.stdout.hasPrefix(#"{"version":1,"facts":{"#))
    }
}
