import NetRulesCore
import Testing

/// The edit distance behind the parser's "Did you mean …?" suggestions (NetRulesCore's `EditDistance`).
@Suite(.timeLimit(.minutes(1)))
struct EditDistanceTests {
    @Test(arguments: [
        ("kitten", "sitting", 3),
        ("bar", "baz", 1),
        ("", "abc", 3),
        ("same", "same", 0),
        ("--jsn", "--json", 1),
        ("--version", "--verbose", 4),
    ])
    func editDistance(from: String, to: String, distance: Int) {
        #expect(EditDistance.between(from, to) == distance)
        #expect(EditDistance.between(to, from) == distance)
    }

    @Test func closestMatchNeedsDistanceBelowFourAndPrefersTheEarliest() {
        func closestMatch(_ word: String, in candidates: [String]) -> String? {
            EditDistance.closest(to: word, among: candidates, limitedByLength: false)
        }
        #expect(closestMatch("--jsn", in: ["--help", "--json"]) == "--json")
        #expect(closestMatch("--tg", in: ["--tag", "--tog"]) == "--tag")
        #expect(closestMatch("abcd", in: ["wxyz"]) == nil)
        #expect(closestMatch("abcd", in: ["abxyz"]) == "abxyz")
    }
}
