import NetRulesCore
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ByteCountSyntaxTests {
    @Test(arguments: [
        ("512", 512), ("0", 0), ("1K", 1_024), ("64KiB", 65_536), ("16MiB", 16_777_216), ("16m", 16_777_216),
        ("1GiB", 1_073_741_824), ("2g", 2_147_483_648), (" 8kib ", 8_192), ("100B", 100), ("1099511627776", 1 << 40),
    ])
    func parses(text: String, expected: Int) {
        #expect(ByteCountSyntax.parse(text) == expected)
    }

    @Test(arguments: ["", "K", "16MB", "1.5M", "-1", "16 MiB", "ten", "1T", "1025G", "99999999999999"])
    func rejects(text: String) {
        #expect(ByteCountSyntax.parse(text) == nil)
    }

    @Test(arguments: [
        (0, "0 B"), (1_023, "1023 B"), (1_024, "1 KiB"), (1_536, "1.5 KiB"), (16 << 20, "16 MiB"),
        (1_288_490_189, "1.2 GiB"),
    ])
    func formats(bytes: Int, expected: String) {
        #expect(ByteCountSyntax.format(bytes) == expected)
    }
}
