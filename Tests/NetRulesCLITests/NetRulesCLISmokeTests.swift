import Testing
@testable import NetRulesCLI

@Test func moduleLinks() {
    #expect(String(describing: NetRulesCLI.self) == "NetRulesCLI")
}
