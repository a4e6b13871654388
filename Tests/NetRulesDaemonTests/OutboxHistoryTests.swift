import Foundation
import NetRulesActions
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// The daemon with the real action runner and its outbox limits: a delivery dropped at a limit is a
/// line in `history` and in the log, and `status` reads the outbox's size from the runner (issue 21,
/// row 6). The network never comes online, so each webhook stays pending.
@Suite(.timeLimit(.minutes(2)))
struct OutboxHistoryTests {
    static let rules = """
        version: 1
        rules:
          - name: office
            when: { ssid: Office }
            do:
              - webhook: { url: "http://127.0.0.1:9/check-in", when: online }
        """

    struct Harness {
        let directory: String
        let daemon: Daemon
        let observer = ScriptedObserver()
        let log = CapturingLogSink()
        let running: Task<Int32, Never>

        init(historyLimit: Int, limits: OutboxLimits) throws {
            directory = FileManager.default.temporaryDirectory.path + "/netrules-outbox-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try OutboxHistoryTests.rules.write(toFile: directory + "/rules.yaml", atomically: true, encoding: .utf8)
            var options = DaemonOptions(
                loop: .testLoop, ruleFiles: [directory + "/rules.yaml"],
                paths: DaemonPaths(
                    stateDirectory: directory + "/state", controlSocket: directory + "/control.sock",
                    ruleDirectory: directory),
                environment: [:], logger: Logger(label: "test", level: .info, sink: log), historyLimit: historyLimit,
                outboxLimits: limits)
            let observer = self.observer
            options.services.stateStore = { _ in MemoryStateStore() }
            options.services.observers = { _, _, _ in [ObserverPlan.Entry(identity: "scripted", observer: observer)] }
            let daemon = Daemon(options: options)
            self.daemon = daemon
            running = Task { await daemon.run() }
        }

        /// Joins and leaves the office `times` times, each join queueing one check-in.
        func flap(_ times: Int) async throws {
            try await waitUntil("the daemon to start") { log.messages.contains { $0.hasPrefix("ready: ") } }
            for n in 1...times {
                observer.report([.ssid: "Office"])
                try await waitUntil("check-in \(n) queued") {
                    log.messages.count { $0.hasPrefix("rule 'office' enter action 0 (webhook): queued") } == n
                }
                observer.report([.ssid: "Home"])
            }
        }

        func stop() async {
            daemon.shutdown()
            _ = await running.value
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    static func webhookOutcomes(_ entries: [HistoryEntry]) -> [HistoryEntry.Outcome] {
        entries.compactMap { $0.actions.first?.outcome }
    }

    @Test func aDeliveryDroppedAtTheRuleLimitIsFailedInItsFiringsEntryAndLogged() async throws {
        var limits = OutboxLimits.default
        limits.pendingPerRule = 2
        let harness = try Harness(historyLimit: 100, limits: limits)
        try await harness.flap(3)
        let reason = "dropped: rule 'office' has 2 deliveries pending, the most the outbox keeps per rule"
        // The log says "queued" when the runner does; the history hears of it through the daemon's
        // event queue a moment later: wait for all three outcomes, not the log line.
        try await waitUntil("the drop and the two queued check-ins in the history") {
            let entries = await harness.daemon.history(HistoryQuery()) ?? []
            return Self.webhookOutcomes(entries).map(\.status) == ["failed", "queued", "queued"]
        }
        let entries = try #require(await harness.daemon.history(HistoryQuery()))
        #expect(entries.count == 3)
        let outcomes = Self.webhookOutcomes(entries)
        #expect(outcomes.map(\.status) == ["failed", "queued", "queued"])
        #expect(outcomes.first?.error?.contains(reason) == true, "\(outcomes)")
        #expect(
            harness.log.messages.contains {
                $0.hasPrefix("rule 'office' enter action 0 (webhook): failed: ") && $0.contains(reason)
            })
        let size = try #require(await harness.daemon.outbox())
        #expect(size.pending == 2 && size.failed == 1)
        #expect(size.pendingBytes > 0)
        await harness.stop()
    }

    @Test func aDropWhoseFiringLeftTheHistoryGetsAnEntryOfItsOwn() async throws {
        var limits = OutboxLimits.default
        limits.pending = 2
        let harness = try Harness(historyLimit: 2, limits: limits)
        try await harness.flap(3)
        try await waitUntil("the drop's own entry") {
            await harness.daemon.history(HistoryQuery())?.contains { $0.id.hasPrefix("outbox-") } == true
        }
        let entries = try #require(await harness.daemon.history(HistoryQuery()))
        let own = try #require(entries.first { $0.id.hasPrefix("outbox-") })
        let action = try #require(own.actions.first)
        #expect(own.rule == "office" && own.edge == .enter && own.facts.isEmpty)
        #expect(own.id == "outbox-" + (action.idempotencyKey ?? "none"))
        #expect(action.type == "webhook" && action.outcome.status == "failed")
        #expect(action.outcome.error?.contains("dropped: 2 deliveries are pending") == true, "\(action)")
        await harness.stop()
    }
}
