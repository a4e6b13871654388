import NetRulesConfig
import NetRulesCore
import Testing

@Suite(.timeLimit(.minutes(1)))
struct WebhookPinConfigTests {
    static let pin = "sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk="

    static func load(_ webhook: String) -> LoadResult {
        let text = """
            version: 1
            rules:
              - name: hook
                when: { ssid: Office }
                do:
                  - webhook: \(webhook)
            """
        return RuleLoader().load([RuleSource(file: "test.yaml", bytes: Array(text.utf8))])
    }

    @Test func aWebhookMayPinTheServersKey() throws {
        let result = Self.load("{ url: \"https://checkin.corp.example/in\", pin: \(Self.pin) }")
        #expect(result.diagnostics.isEmpty)
        let action = try #require(result.ruleSet.rules.first?.actions.first?.action.webhook)
        #expect(action.pins == [Self.pin])
    }

    @Test func refusesABadPinAndAPinOnPlainHTTP() {
        let bad = Self.load("{ url: \"https://checkin.corp.example/in\", pin: sha256//nope }")
        #expect(
            bad.diagnostics.map(\.message) == [
                "'sha256//nope' is not a pin: expected 'sha256//' and 44 base64 characters"
            ])
        let plain = Self.load("{ url: \"http://checkin.corp.example/in\", pin: \(Self.pin) }")
        #expect(plain.diagnostics.map(\.message).contains("a pinned webhook must use an https:// URL"))
    }
}
