import Foundation
import NetRulesActions
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// The daemon with its real action runner and real history file: what actions print or fail with
/// reaches `history.jsonl`, `netrules history` and the log with the firing's secrets masked, and
/// an action whose secret is unset is refused and recorded, never sent.
@Suite(.timeLimit(.minutes(2)))
struct SecretHistoryTests {
    static let token = "tok-5c1e9a7d"

    /// A daemon on `rules` with `environment`, a scripted observer and in-memory state; its
    /// actions and history are real.
    struct Harness {
        let directory: String
        let daemon: Daemon
        let observer = ScriptedObserver()
        let log = CapturingLogSink()
        let running: Task<Int32, Never>

        init(rules: String, environment: [String: String]) throws {
            directory = FileManager.default.temporaryDirectory.path + "/netrules-secret-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try rules.write(toFile: directory + "/rules.yaml", atomically: true, encoding: .utf8)
            var options = DaemonOptions(
                loop: .testLoop, ruleFiles: [directory + "/rules.yaml"],
                paths: DaemonPaths(
                    stateDirectory: directory + "/state", controlSocket: directory + "/control.sock",
                    ruleDirectory: directory),
                environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 },
                logger: Logger(label: "test", level: .info, sink: log))
            let (store, observer) = (MemoryStateStore(), self.observer)
            options.services.stateStore = { _ in store }
            options.services.observers = { _, _, _ in [ObserverPlan.Entry(identity: "scripted", observer: observer)] }
            let daemon = Daemon(options: options)
            self.daemon = daemon
            running = Task { await daemon.run() }
        }

        /// The one firing's entry once its first action has reported.
        func reportedEntry() async throws -> HistoryEntry {
            var entry: HistoryEntry?
            try await waitUntil("the action's result in the history") {
                entry = await daemon.history(HistoryQuery())?.first
                return entry.map { $0.actions.first?.outcome.status != "pending" } ?? false
            }
            return try #require(entry)
        }

        /// `history.jsonl` as the daemon wrote it.
        var historyFile: String {
            (try? String(contentsOfFile: directory + "/state/" + FiringHistory.fileName, encoding: .utf8)) ?? ""
        }

        func stop() async {
            daemon.shutdown()
            _ = await running.value
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test func aTokenInACommandsErrorIsMaskedInTheHistoryItsTextAndTheLog() async throws {
        let harness = try Harness(
            rules: """
                version: 1
                rules:
                  - name: list
                    when: { ssid: Office }
                    do:
                      - run: ls -- {{env.TOKEN}}

                """, environment: ["TOKEN": Self.token])
        defer { harness.remove() }
        harness.observer.report([.ssid: "Office"])
        let entry = try await harness.reportedEntry()
        await harness.stop()

        let outcome = try #require(entry.actions.first?.outcome)
        #expect(outcome.status == "failed")
        #expect(outcome.exitStatus == 2)
        let output = try #require(outcome.output, "ls printed nothing")
        #expect(output.hasPrefix("stderr: ls: cannot access") && output.contains("<secret>"), "\(output)")
        #expect(entry.actions.first?.rendered == "ls -- '<secret>'")

        let file = harness.historyFile
        #expect(file.contains("<secret>"), "\(file)")
        #expect(!file.contains(Self.token), "the token reached history.jsonl: \(file)")
        let text = HistoryText.render([entry], utcOffset: { _ in 0 })
        #expect(text.contains("<secret>") && !text.contains(Self.token), "\(text)")
        let messages = harness.log.messages
        #expect(messages.contains { $0.contains("output: stderr: ") && $0.contains("<secret>") }, "\(messages)")
        #expect(!messages.contains { $0.contains(Self.token) }, "the token reached the log: \(messages)")
    }

    @Test func aWebhookWhoseSecretIsUnsetIsNeverSentAndTheHistorySaysWhy() async throws {
        let server = try TestHTTPServer { _ in .response(status: 200, reason: "OK") }
        defer { server.stop() }
        let harness = try Harness(
            rules: """
                version: 1
                rules:
                  - name: check-in
                    when: { ssid: Office }
                    do:
                      - webhook:
                          url: "\(server.url("/check-in"))"
                          headers: { Authorization: "Bearer {{env.TOKEN}}" }
                          retry: { attempts: 5, backoff: 10ms }

                """, environment: [:])
        defer { harness.remove() }
        harness.observer.report([.ssid: "Office"])
        let entry = try await harness.reportedEntry()
        await harness.stop()

        #expect(server.requests.isEmpty, "sent: \(server.requests.map(\.path))")
        let outcome = try #require(entry.actions.first?.outcome)
        #expect(outcome.status == "failed")
        #expect(outcome.retries == nil, "no attempt was made, so none was retried")
        let error = try #require(outcome.error)
        #expect(error.hasPrefix("{{env.TOKEN}} is not set in the daemon's environment; nothing was sent"), "\(error)")
        #expect(harness.historyFile.contains("is not set in the daemon's environment"), "\(harness.historyFile)")
        // The daemon said so when it loaded the rules, too.
        let messages = harness.log.messages
        #expect(
            messages.contains { $0.contains("rules.yaml:8:45: warning: TOKEN is not set in the daemon's environment") },
            "\(messages)")
    }
}
