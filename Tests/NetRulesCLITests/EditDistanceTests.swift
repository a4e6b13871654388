import Testing

@testable import NetRulesCLI

/// The edit distance behind "Did you mean …?" suggestions.
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
        #expect(from.editDistance(to: to) == distance)
        #expect(to.editDistance(to: from) == distance)
    }

    @Test func closestMatchNeedsDistanceBelowFourAndPrefersTheEarliest() {
        #expect("--jsn".closestMatch(in: ["--help", "--json"]) == "--json")
        #expect("--tg".closestMatch(in: ["--tag", "--tog"]) == "--tag")
        #expect("abcd".closestMatch(in: ["wxyz"]) == nil)
        #expect("abcd".closestMatch(in: ["abxyz"]) == "abxyz")
    }
}
