import NetRulesCore
import Testing

@Suite(.timeLimit(.minutes(1)))
struct IPAddressTests {
    @Test(arguments: [
        ("192.168.1.7", "192.168.1.7"), ("fe80::1", "fe80::1"), ("FE80:0:0:0:0:0:0:1", "fe80::1"),
        ("2001:db8::8:800:200c:417a", "2001:db8::8:800:200c:417a"), ("::", "::"), ("::1", "::1"),
        ("fe80::1%eth0", "fe80::1"), ("::ffff:10.0.0.1", "::ffff:a00:1"),
    ])
    func parsesAndPrints(text: String, canonical: String) {
        #expect(IPAddress(text)?.description == canonical)
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.256", "1.2.3.4.5", "gateway", "1::2::3", "12345::1", "01.2.3.4x"])
    func rejects(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func cidrContainment() throws {
        let block = try #require(CIDR("10.0.0.0/8"))
        #expect(block.contains(IPAddress("10.200.1.2")!))
        #expect(!block.contains(IPAddress("11.0.0.1")!))
        #expect(!block.contains(IPAddress("fd00::1")!))
        let v6 = try #require(CIDR("fd00::/8"))
        #expect(v6.contains(IPAddress("fd12:3456::1")!))
        #expect(CIDR("192.168.1.7/24")?.prefixLength == 24)
        #expect(CIDR("192.168.1.7/33") == nil)
        #expect(CIDR("0.0.0.0/0")!.contains(IPAddress("8.8.8.8")!))
        #expect(CIDR("192.168.1.0/23")!.contains(IPAddress("192.168.0.255")!))
    }
}
