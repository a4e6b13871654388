import NetRulesTesting
import Testing

/// Scenario 3 of issue 6: the intranet host stops answering, for longer than `for:`, then answers again.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct IntranetDownTests {
    @Test func firesAfterTheHoldAndExitsOnRecovery() async throws {
        try await Testbed.run { testbed in
            let hook = try ActionRecord.script(in: testbed)
            let down = ActionRecord(path: testbed.path("intranet-down"))
            let up = ActionRecord(path: testbed.path("intranet-up"))
            let rules = try testbed.write(
                """
                version: 1
                hosts:
                  intranet: { address: \(Testbed.peerAddress), interval: 250ms, timeout: 200ms, tries: 1 }
                rules:
                  - name: intranet-down
                    when:
                      all:
                        - network: [wifi, wired]
                        - unreachable: intranet
                    on: [enter, exit]
                    for: 1s
                    do:
                      \(down.action(hook: hook))
                  # A barrier: proves a probe round reached the host before the test removes it.
                  - name: intranet-up
                    when: { reachable: intranet }
                    do:
                      \(up.action(hook: hook))

                """, to: "intranet.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await eventually("the intranet to be reachable") { up.entries.count == 1 }

            let removed = realtimeNanoseconds()
            try testbed.peer.ip("addr", "del", "\(Testbed.peerAddress)/24", "dev", Testbed.peerLink)
            try await eventually("intranet-down to enter") { down.entries.count == 1 }
            let enter = try #require(down.entries.first)
            #expect(enter.edge == "enter")
            #expect(enter.nanoseconds - removed >= 1_000_000_000, "fired before `for: 1s` had passed")

            let restored = realtimeNanoseconds()
            try testbed.peer.ip("addr", "add", "\(Testbed.peerAddress)/24", "dev", Testbed.peerLink)
            try await eventually("intranet-down to exit") { down.entries.count == 2 }
            let exit = try #require(down.entries.last)
            #expect(exit.edge == "exit")
            #expect(exit.nanoseconds - restored >= 1_000_000_000, "exit fired before `for: 1s` had passed")
            #expect(down.edges == ["enter", "exit"])

            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
