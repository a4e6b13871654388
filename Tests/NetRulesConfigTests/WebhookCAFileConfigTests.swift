import NetRulesConfig
import NetRulesCore
import Testing

/// `ca_file:` on a webhook: an absolute path on an https URL; a file the checker cannot read is a
/// warning that keeps the rule (the daemon may run elsewhere, or the file come later).
@Suite(.timeLimit(.minutes(1)))
struct WebhookCAFileConfigTests {
    static func load(_ webhook: String, fileProblem: (@Sendable (String) -> String?)? = nil) -> LoadResult {
        let text = """
            version: 1
            rules:
              - name: hook
                when: { ssid: Office }
                do:
                  - webhook: \(webhook)
            """
        var loader = RuleLoader()
        loader.fileProblem = fileProblem
        return loader.load([RuleSource(file: "test.yaml", bytes: Array(text.utf8))])
    }

    @Test func aWebhookMayTrustTheCAsOfAFile() throws {
        let result = Self.load(
            "{ url: \"https://checkin.corp.example/in\", ca_file: /etc/netrules/corp-ca.pem }",
            fileProblem: { _ in nil })
        #expect(result.diagnostics.isEmpty)
        let action = try #require(result.ruleSet.rules.first?.actions.first?.action.webhook)
        #expect(action.caFile == "/etc/netrules/corp-ca.pem")
    }

    @Test func refusesARelativePathAndPlainHTTP() {
        let relative = Self.load("{ url: \"https://checkin.corp.example/in\", ca_file: corp-ca.pem }")
        #expect(relative.diagnostics.map(\.message) == ["'ca_file' must be an absolute path"])
        #expect(relative.ruleSet.rules.isEmpty)
        let plain = Self.load("{ url: \"http://checkin.corp.example/in\", ca_file: /etc/ca.pem }")
        #expect(plain.diagnostics.map(\.message) == ["a webhook with 'ca_file' must use an https:// URL"])
    }

    @Test func aFileThatCannotBeReadIsAWarningAndTheRuleStays() throws {
        let result = Self.load(
            "{ url: \"https://checkin.corp.example/in\", ca_file: /etc/netrules/missing.pem }",
            fileProblem: { _ in "does not exist" })
        let warning = try #require(result.diagnostics.first)
        #expect(warning.severity == .warning)
        #expect(
            warning.description
                == "test.yaml:6:69: warning: ca_file '/etc/netrules/missing.pem' does not exist; every delivery of "
                + "this webhook will fail until it can be read")
        #expect(result.ruleSet.rules.count == 1)
    }
}
