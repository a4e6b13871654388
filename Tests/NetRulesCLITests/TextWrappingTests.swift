import Testing

@testable import NetRulesCLI

/// Word wrapping, which must match swift-argument-parser's to the character.
@Suite(.timeLimit(.minutes(1)))
struct TextWrappingTests {
    @Test(arguments: [
        ("short", 10, 0, "short"),
        ("aaaa bbbbb ccc", 10, 0, "aaaa\nbbbbb ccc"),
        // Only the last line may fill the width: argument-parser cuts each chunk at its last space.
        ("aaaa bbbbb", 10, 0, "aaaa bbbbb"),
        ("aaaa bbbbb c", 10, 0, "aaaa\nbbbbb c"),
        ("one\n\ntwo", 20, 0, "one\n\ntwo"),
        ("averyveryverylongword tail", 8, 0, "averyveryverylongword\ntail"),
        ("the quick brown fox", 14, 4, "    the quick\n    brown fox"),
    ])
    func wraps(text: String, width: Int, indent: Int, expected: String) {
        #expect(text.wrapped(to: width, indent: indent) == expected)
    }
}
