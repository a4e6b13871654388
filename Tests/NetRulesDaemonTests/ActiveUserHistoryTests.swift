import Foundation
import NetRulesActions
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// `user: active` with no graphical session (this machine has none: logind, if it runs, holds no
/// active local graphical session): the daemon skips the action, goes on with the next one, and
/// says so in `history.jsonl`, `netrules history` and the log.
@Suite(.timeLimit(.minutes(2)))
struct ActiveUserHistoryTests {
    @Test func noGraphicalSessionSkipsTheActionWithAHistoryAndALogLine() async throws {
        let harness = try SecretHistoryTests.Harness(
            rules: """
                version: 1
                rules:
                  - name: portal-notice
                    when: { ssid: Office }
                    do:
                      - run: { command: "notify-send portal", user: active }
                      - run: "true"

                """, environment: [:])
        defer { harness.remove() }
        harness.observer.report([.ssid: "Office"])
        var entry: HistoryEntry?
        try await waitUntil("both actions' results in the history") {
            entry = await harness.daemon.history(HistoryQuery())?.first
            return entry.map { $0.actions.count == 2 && !$0.actions.contains { $0.outcome.status == "pending" } }
                ?? false
        }
        await harness.stop()
        let actions = try #require(entry?.actions)
        #expect(actions.map(\.outcome.status) == ["skipped", "ok"])
        #expect(actions.first?.outcome.error == "no active local graphical session (user: active)")
        #expect(harness.historyFile.contains("no active local graphical session (user: active)"))
        let text = HistoryText.render([try #require(entry)], utcOffset: { _ in 0 })
        #expect(text.contains("→ skipped: no active local graphical session (user: active)"), "\(text)")
        let messages = harness.log.messages
        #expect(
            messages.contains {
                $0.contains("rule 'portal-notice' enter action 0 (run): skipped: no active local graphical session")
            }, "\(messages)")
    }
}
