import Foundation
import Testing

/// `check` and `simulate` warn, at the placeholder's line and column, when a rule reads
/// `{{env.NAME}}` and NAME is unset or empty in their environment; the rules still load (exit 0).
@Suite(.timeLimit(.minutes(1)))
struct CheckSecretWarningTests {
    static let rules = """
        version: 1
        rules:
          - name: check-in
            when: { ssid: Office }
            do:
              - webhook:
                  url: "https://hr.example.com/check-in"
                  headers:
                    Authorization: "Bearer {{env.CHECKIN_TOKEN}}"
                  json: { who: "{{env.WHO}}" }
              - run: ls -- {{env.CHECKIN_TOKEN}}

        """

    /// The rules in a fresh directory, as `rules.yaml`, and a one-step timeline beside them.
    private func files() throws -> (directory: URL, rules: String, timeline: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let rules = directory.appendingPathComponent("rules.yaml").path
        try Self.rules.write(toFile: rules, atomically: true, encoding: .utf8)
        let timeline = directory.appendingPathComponent("timeline.yaml").path
        try "- at: 0s\n  facts: { ssid: Office }\n".write(toFile: timeline, atomically: true, encoding: .utf8)
        return (directory, rules, timeline)
    }

    private func run(_ arguments: [String], _ extra: [String: String] = [:]) async -> CommandTests.Outcome {
        await CommandTests.run(
            arguments, environment: ["COLUMNS": "80", "PATH": "/usr/bin:/bin"].merging(extra) { $1 })
    }

    /// What `check` prints for `rules.yaml` at `file` when CHECKIN_TOKEN is unset and WHO is empty.
    private func expected(_ file: String) -> String {
        let daemon =
            "the daemon reads its environment from the systemd unit's EnvironmentFile=-/etc/netrules/environment "
            + "(netrules.service), and where"
        func hint(_ name: String) -> String {
            "  hint: add \(name)=… to /etc/netrules/environment (mode 0600; for netrules-user.service, "
                + "~/.config/netrules/environment); check sees only its own environment\n"
        }
        return """
            \(file):9:36: warning: CHECKIN_TOKEN is not set in this environment; \(daemon) CHECKIN_TOKEN is unset \
            or empty an action that reads it fails and sends or runs nothing
                        Authorization: "Bearer {{env.CHECKIN_TOKEN}}"
                                               ^
            \(hint("CHECKIN_TOKEN"))\(file):10:25: warning: WHO is empty in this environment; \(daemon) WHO is unset \
            or empty an action that reads it fails and sends or runs nothing
                      json: { who: "{{env.WHO}}" }
                                    ^
            \(hint("WHO"))\(file):11:20: warning: CHECKIN_TOKEN is not set in this environment; \(daemon) \
            CHECKIN_TOKEN is unset or empty an action that reads it fails and sends or runs nothing
                  - run: ls -- {{env.CHECKIN_TOKEN}}
                               ^
            \(hint("CHECKIN_TOKEN"))
            """
    }

    @Test func checkWarnsAtEachPlaceholderAndStillExitsZero() async throws {
        let (directory, rules, _) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await run(["check", rules], ["WHO": ""])
        #expect(r.code == 0)
        #expect(r.stdout == "ok: 1 rule\n")
        #expect(r.stderr == expected(rules))
    }

    @Test func checkIsQuietWhenTheVariablesAreSet() async throws {
        let (directory, rules, _) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await run(["check", rules], ["CHECKIN_TOKEN": "t0ken", "WHO": "me"])
        #expect(r.code == 0)
        #expect(r.stdout == "ok: 1 rule\n")
        #expect(r.stderr == "")
    }

    @Test func checkJSONListsTheWarningsWithTheirPositions() async throws {
        let (directory, rules, _) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await run(["check", "--json", rules], ["WHO": "me"])
        #expect(r.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == true)
        let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.map { $0["severity"] as? String } == ["warning", "warning"])
        #expect(diagnostics.map { $0["line"] as? Int } == [9, 11])
        #expect(diagnostics.map { $0["column"] as? Int } == [36, 20])
        #expect(
            diagnostics.map { $0["keyPath"] as? String } == [
                "rules[0].do[0].webhook.headers.Authorization", "rules[0].do[1].run",
            ])
    }

    @Test func simulateShowsTheSameWarnings() async throws {
        let (directory, rules, timeline) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await run(["simulate", rules, "--timeline", timeline], ["WHO": ""])
        #expect(r.code == 0)
        #expect(r.stderr == expected(rules))
        #expect(r.stdout.contains("check-in  enter"), "\(r.stdout)")
    }
}
