import NetRulesCore
import Testing

@Suite(.timeLimit(.minutes(1)))
struct MACAddressTests {
    @Test(arguments: [
        ("a1:b2:c3:d4:e5:f6", "a1:b2:c3:d4:e5:f6"),
        ("A1:B2:C3:D4:E5:F6", "a1:b2:c3:d4:e5:f6"),
        ("a1-b2-c3-d4-e5-f6", "a1:b2:c3:d4:e5:f6"),
        ("A4-2B-8C-92-47-3D", "a4:2b:8c:92:47:3d"),
        ("a1 b2 c3 d4 e5 f6", "a1:b2:c3:d4:e5:f6"),
        ("a1b2c3d4e5f6", "a1:b2:c3:d4:e5:f6"),
        ("a42b8c92473e", "a4:2b:8c:92:47:3e"),
        ("a1:b2:c3:d4:5:e6", "a1:b2:c3:d4:05:e6"),
        ("0:1:2:3:4:5", "00:01:02:03:04:05"),
        ("  a1:b2:c3:d4:e5:f6 ", "a1:b2:c3:d4:e5:f6"),
    ])
    func normalises(spelling: String, canonical: String) {
        #expect(MACAddress(spelling)?.description == canonical)
    }

    @Test(arguments: [
        "", "a1:b2:c3:d4:e5", "a1:b2:c3:d4:e5:f6:07", "g1:b2:c3:d4:e5:f6", "a1::b2:c3:d4:e5", "a1b2c3d4e5f",
        "a1:b2:c3:d4:e5:f66", "office", "a1b2c3d4e5f6a",
    ])
    func rejectsNonAddresses(text: String) {
        #expect(MACAddress(text) == nil)
    }

    @Test func spellingsCompareEqual() {
        #expect(MACAddress("a1:b2:c3:d4:5:e6") == MACAddress("A1-B2-C3-D4-05-E6"))
        #expect(MACAddress("a1b2c3d405e6") == MACAddress("a1 b2 c3 d4 05 e6"))
    }
}
