import Foundation
import Glibc
import NetRulesTesting
import Synchronization
import Testing

/// Issue 10, items 4 and 6: SIGTERM while a webhook retries against a failing server stops within
/// the announced bound (a second SIGTERM at once), the delivery stays in the outbox, and the next
/// start delivers it with the same idempotency key and runs the firing's remaining write once.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct ShutdownTests {
    /// A switch that makes the receiver answer 200 instead of 500.
    final class Health: Sendable {
        private let healthy = Mutex(false)
        var isHealthy: Bool { healthy.withLock { $0 } }
        func heal() { healthy.withLock { $0 = true } }
    }

    /// The daemon running an office rule whose webhook fails (500, 100 attempts) before a write,
    /// the laptop in the office, and the webhook retried at least once.
    static func retryingCheckIn(in testbed: Testbed, json: String, content: String) async throws
        -> (Health, TestHTTPServer, String, String, DaemonProcess)
    {
        let wifi = try WiFiPlugin(in: testbed)
        let health = Health()
        let receiver = try testbed.serve { _ in
            health.isHealthy
                ? .response(status: 200, reason: "OK") : .response(status: 500, reason: "Server Error")
        }
        let after = testbed.path("after.log")
        let rules = try testbed.write(
            """
            version: 1
            \(wifi.observersYAML)
            rules:
              - name: office
                when: { ssid: Office }
                do:
                  - webhook:
                      url: "\(receiver.url("/check-in"))"
                      \(json)
                      retry: { attempts: 100, backoff: 200ms }
                  - write: { path: \(after), append: true, content: "\(content)" }

            """, to: "office.yaml")
        try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
        let daemon = try await testbed.startDaemon(rules: [rules])
        try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
        try await eventually("the webhook to be retried") { receiver.requests.count >= 2 }
        return (health, receiver, after, rules, daemon)
    }

    @Test func aSecondSIGTERMStopsRetriesAndTheRestartFinishesTheFiring() async throws {
        try await Testbed.run { testbed in
            let (healthy, receiver, after, rules, first) = try await Self.retryingCheckIn(
                in: testbed, json: #"json: { ssid: "{{ssid}}" }"#, content: "after {{ssid}}\\n")

            first.send(SIGTERM)
            try await Task.sleep(for: .milliseconds(300))
            #expect(first.termination == nil, "exited before its grace period without a second signal")
            let stopping = ContinuousClock.now
            first.send(SIGTERM)
            #expect(try await first.waitForExit(timeout: .seconds(10)) == .exited(0))
            #expect(ContinuousClock.now - stopping < .seconds(5), "the second SIGTERM did not stop it at once")
            #expect(lines(of: after).isEmpty, "the write ran although the webhook had not finished")
            let keys = Set(receiver.requests.compactMap { $0.header("Idempotency-Key") })
            #expect(keys.count == 1)

            healthy.heal()
            let attemptsBefore = receiver.requests.count
            let second = try await testbed.startDaemon(rules: [rules])
            try await eventually("the write after the restart") { lines(of: after).count == 1 }
            try await eventually("the delivery from the outbox") { receiver.requests.count > attemptsBefore }
            #expect(Set(receiver.requests.compactMap { $0.header("Idempotency-Key") }) == keys, "a second delivery")
            #expect(lines(of: after) == ["after Office"])
            #expect(try await testbed.stop(second) == .exited(0))
            #expect(lines(of: after).count == 1, "the write ran twice")
        }
    }

    /// Issue 10, item 6: SIGKILL while the webhook retries; the restart used to say "webhook
    /// skipped: already in the outbox" and then skip the write. Now the outbox owns the delivery
    /// and the firing's write runs, once.
    @Test func aSIGKILLedFiringRunsItsRemainingActionsAfterTheRestart() async throws {
        try await Testbed.run { testbed in
            let (healthy, receiver, after, rules, first) = try await Self.retryingCheckIn(
                in: testbed, json: "", content: "after\\n")
            first.killAndReap()
            healthy.heal()
            let attemptsBefore = receiver.requests.count
            let second = try await testbed.startDaemon(rules: [rules])
            try await eventually("the write after the restart") { lines(of: after).count == 1 }
            try await eventually("the delivery from the outbox") { receiver.requests.count > attemptsBefore }
            #expect(Set(receiver.requests.compactMap { $0.header("Idempotency-Key") }).count == 1)
            #expect(!testbed.log.contains("write skipped"), "\(testbed.log)")
            #expect(try await testbed.stop(second) == .exited(0))
            #expect(lines(of: after) == ["after"])
        }
    }
}
