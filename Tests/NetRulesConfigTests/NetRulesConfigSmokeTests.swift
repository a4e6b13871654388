import Testing
@testable import NetRulesConfig

@Test func moduleLinks() {
    #expect(String(describing: NetRulesConfig.self) == "NetRulesConfig")
}
