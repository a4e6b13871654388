import Testing
@testable import NetRulesActions

@Test func moduleLinks() {
    #expect(String(describing: NetRulesActions.self) == "NetRulesActions")
}
