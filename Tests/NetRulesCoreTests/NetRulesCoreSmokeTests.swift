import Testing
@testable import NetRulesCore

@Test func moduleLinks() {
    #expect(String(describing: NetRulesCore.self) == "NetRulesCore")
}
