import Foundation
import NetRulesActions
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// The history names the account an action used (issue 37, item 5): whom `run:`'s `user:` ran the
/// command as, and whom `write:`'s `owner:` gave the file to, in `history.jsonl`, `netrules
/// history` (text and `--json`, the same document) and the log.
@Suite(.timeLimit(.minutes(2)), .enabled(if: geteuid() == 0, "needs root to run as and give files to other accounts"))
struct AccountHistoryTests {
    @Test func theHistoryNamesTheAccountOfUserAndOwner() async throws {
        let directory = FileManager.default.temporaryDirectory.path + "/netrules-owner-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let harness = try SecretHistoryTests.Harness(
            rules: """
                version: 1
                rules:
                  - name: desk
                    when: { ssid: Office }
                    do:
                      - run: { command: "true", user: nobody }
                      - write: { path: \(directory)/desk, content: "{{ssid}}\\n", owner: "daemon", mode: "0640" }
                      - run: "true"

                """, environment: [:])
        defer { harness.remove() }
        harness.observer.report([.ssid: "Office"])
        var entry: HistoryEntry?
        try await waitUntil("the three actions' results in the history") {
            entry = await harness.daemon.history(HistoryQuery())?.first
            return entry.map { $0.actions.count == 3 && !$0.actions.contains { $0.outcome.status == "pending" } }
                ?? false
        }
        await harness.stop()
        let actions = try #require(entry?.actions)
        #expect(actions.map(\.outcome.status) == ["ok", "ok", "ok"], "\(actions)")
        #expect(actions.map(\.outcome.account) == ["nobody", "daemon", nil])
        #expect(actions.map(\.outcome.group) == [nil, "daemon", nil])
        #expect(actions[1].rendered == "\(directory)/desk (replace, owner daemon): Office\\n")

        var info = stat()
        #expect(stat(directory + "/desk", &info) == 0)
        #expect(info.st_uid == 1 && info.st_mode & 0o7777 == 0o640, "daemon's (uid 1 on Debian), mode 0640")

        let line = harness.historyFile
        #expect(line.contains(#""outcome":{"status":"ok","exit_status":0,"#), "\(line)")
        #expect(line.contains(#""account":"nobody"}"#) && line.contains(#""account":"daemon","group":"daemon"}"#))
        let text = HistoryText.render([try #require(entry)], utcOffset: { _ in 0 })
        #expect(text.contains("  run     true  → exit status 0 in "), "\(text)")
        #expect(text.contains(", as nobody\n"), "\(text)")
        #expect(text.contains("(replace, owner daemon): Office\\n  → ok in "), "\(text)")
        #expect(text.contains(", owner daemon:daemon\n"), "\(text)")
        let messages = harness.log.messages
        #expect(messages.contains { $0.contains("rule 'desk' enter action 1 (write): succeeded, owner daemon:daemon") })
    }
}
