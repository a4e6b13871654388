import Testing
@testable import NetRulesProbes

@Test func moduleLinks() {
    #expect(String(describing: NetRulesProbes.self) == "NetRulesProbes")
}
