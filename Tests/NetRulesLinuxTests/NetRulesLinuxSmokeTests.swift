import Testing
@testable import NetRulesLinux

@Test func moduleLinks() {
    #expect(String(describing: NetRulesLinux.self) == "NetRulesLinux")
}
