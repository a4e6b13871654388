import NetRulesCore
import Testing

/// The dialect, construct by construct: `(pattern, text, matches)`.
@Suite(.timeLimit(.minutes(1)))
struct TextPatternMatchingTests {
    static let literals: [(String, String, Bool)] = [
        ("abc", "xxabcxx", true), ("abc", "ab", false), ("", "anything", true), ("", "", true),
        ("é", "café", true), ("☕", "Cafe ☕ 5G", true), ("Guest", "guest", false), ("a b", "a b", true),
        ("#x", "#x", true), ("a}", "a}", true), ("]", "]", true), ("5G", "Home-5G-x", true),
    ]
    static let dotAndAnchors: [(String, String, Bool)] = [
        ("a.c", "abc", true), ("a.c", "a\nc", false), ("a.c", "a☕c", true), ("a.c", "a\rc", true),
        // `.` is one scalar: a precomposed é is one, e + U+0301 is two.
        ("^.$", "é", true), ("^.$", "e\u{301}", false), ("^..$", "e\u{301}", true),
        ("^abc", "abcd", true), ("^abc", "xabc", false), ("abc$", "xabc", true), ("abc$", "abcx", false),
        ("^$", "", true), ("^$", "a", false), ("a^b", "a^b", false), ("a$b", "a$b", false),
        ("\\Aab\\z", "ab", true), ("\\Aab\\z", "xab", false),
        // `$` is the end of the text only, not before a final newline as in PCRE.
        ("abc$", "abc\n", false), ("^a|b$", "ba", false), ("^a|b$", "ab", true),
    ]
    static let groupsAndAlternation: [(String, String, Bool)] = [
        ("^(ab)+$", "ababab", true), ("^(ab)+$", "ababa", false), ("^(?:ab|cd)$", "cd", true),
        ("^(?:ab|cd)$", "abcd", false), ("^(?<site>home|office)-5G$", "office-5G", true), ("^(?P<x>a)b$", "ab", true),
        ("a|b|c", "xxc", true), ("a|b|c", "xyz", false), ("^(a|)$", "", true), ("^(|a)b$", "b", true),
        ("^()$", "", true), ("^a(b|c(d|e))f$", "acef", true), ("^a(b|c(d|e))f$", "acf", false), ("|", "x", true),
        ("^(^a|b)+$", "ab", true), ("^(^a|b)+$", "ba", false),
    ]
    static let quantifiers: [(String, String, Bool)] = [
        ("^a*$", "", true), ("^a*$", "aaa", true), ("^a*$", "aab", false), ("^a+$", "", false), ("^a+$", "aa", true),
        ("^ab?c$", "ac", true), ("^ab?c$", "abc", true), ("^ab?c$", "abbc", false), ("^a{3}$", "aaa", true),
        ("^a{3}$", "aa", false), ("^a{3}$", "aaaa", false), ("^a{2,}$", "aaaaa", true), ("^a{2,}$", "a", false),
        ("^a{2,3}$", "aa", true), ("^a{2,3}$", "aaa", true), ("^a{2,3}$", "aaaa", false), ("^a{0}b$", "b", true),
        ("^a{0,0}b$", "ab", false), ("^(ab){1,2}$", "abab", true), ("^(ab){1,2}$", "ababab", false),
        ("^a{1,}$", "a", true), ("^a{0,}$", "", true),
        // Lazy forms find the same texts.
        ("^a*?b$", "aab", true), ("^a+?$", "aa", true), ("^a??b$", "b", true), ("^a{1,2}?$", "aa", true),
        ("^x{0,1000}$", String(repeating: "x", count: 1000), true),
        ("^x{0,1000}$", String(repeating: "x", count: 1001), false),
        // Loops around something that can match empty terminate and still match.
        ("^(a*)*$", "", true), ("^(a?)*b$", "b", true), ("^(|a)+$", "aa", true), ("^(a*)+b$", "aab", true),
        ("^(a*){3,5}$", "aaaa", true), ("^((){1000}){1000}$", "", true),
    ]
    static let classes: [(String, String, Bool)] = [
        ("^[abc]+$", "cab", true), ("^[abc]+$", "cad", false), ("^[^abc]$", "d", true), ("^[^abc]$", "a", false),
        ("^[a-z0-9]+$", "wifi5", true), ("^[a-z]+$", "Wifi", false), ("[-x]", "-", true), ("[x-]", "-", true),
        ("^[a\\-z]$", "-", true), ("^[a\\-z]$", "b", false), ("^[\\]]$", "]", true), ("^[\\[]$", "[", true),
        ("^[\\\\]$", "\\", true), ("^[.*+?(){}|$^]+$", ".*+?(){}|$^", true), ("^[a^]+$", "^a", true),
        ("^[\\d_]+$", "4_2", true), ("^[^\\d]+$", "abc", true), ("^[^\\d]+$", "ab1", false), ("^[\\W]+$", "-!", true),
        ("^[\\s\\d]+$", " 1 2", true), ("^[^\\S]$", " ", true), ("[é-ë]", "ê", true), ("[é-ë]", "e", false),
        ("^[\\x41-\\x43]+$", "ABC", true), ("^[\\t ]+$", "\t ", true), ("^[^\\n]$", "\n", false),
        ("^[a-cx-z]+$", "azby", true), ("^[a-cx-z]+$", "azdy", false),
    ]
    static let escapes: [(String, String, Bool)] = [
        ("^\\d+$", "2024", true), ("^\\d+$", "٤٢", true), ("\\D", "123", false), ("^\\w+$", "Café_5G", true),
        ("\\W", "Café_5G", false), ("^\\w$", "-", false), ("^\\s$", " ", true), ("^\\s$", "\u{A0}", true),
        ("\\S", "  \t", false), ("^a\\.b$", "a.b", true), ("^a\\.b$", "axb", false),
        ("^\\(\\)\\[\\]\\{\\}\\*\\+\\?\\|\\^\\$\\\\$", "()[]{}*+?|^$\\", true),
        ("^\\-\\/\\ \\#\\'\\\"$", "-/ #'\"", true),
        ("\\t", "a\tb", true), ("\\n", "a\nb", true), ("\\r", "a\rb", true), ("\\f\\v", "\u{0C}\u{0B}", true),
        ("^\\x41\\x{42}\\u0043\\u{1F600}$", "ABC😀", true), ("^\\x{e9}$", "é", true),
        ("\\bcat\\b", "a cat sat", true), ("\\bcat\\b", "concat", false), ("\\Bcat", "concat", true),
        ("\\bcafé\\b", "le café.", true), ("^\\b$", "", false), ("\\b", "a", true), ("\\B", "a", false),
        ("\\B", "", true),
    ]
    static let caseInsensitive: [(String, String, Bool)] = [
        ("(?i)^guest$", "GUEST", true), ("(?i)^guest$", "Guest", true), ("^guest$", "GUEST", false),
        ("(?i)^[a-z]+$", "MiXeD", true), ("(?i)^[^a-z]+$", "ABC", false), ("(?i)^[^a-z]+$", "123", true),
        ("(?i)^CAFÉ$", "café", true), ("(?i)^k$", "\u{212A}", true), ("(?i)^\u{212A}$", "k", true),
        ("(?i)^σ$", "Σ", true), ("(?i)\\d", "a", false), ("(?i)^\\w+$", "ÀB", true), ("(?i)", "", true),
        ("(?i)^a.c$", "AXC", true),
    ]
    static let catastrophicShapes: [(String, String, Bool)] = [
        ("^(a+)+$", "aaaa", true), ("^(a+)+$", "aaab", false), ("(a|aa)*c", "aaac", true), ("(a*)*b", "aaa", false),
        ("(?:(?:(?:(?:a*)*)*)*)*b", "aab", true), ("(x+x+)+y", "xxxxxxxxxxy", true),
    ]

    @Test(
        arguments: literals + dotAndAnchors + groupsAndAlternation + quantifiers + classes + escapes + caseInsensitive
            + catastrophicShapes
    )
    func matches(pattern: String, text: String, expected: Bool) throws {
        #expect(try TextPattern(pattern).matches(text) == expected)
    }

    @Test func keepsTheSourceAsWritten() throws {
        #expect(try TextPattern("(?i)^Guest-[0-9]+$").source == "(?i)^Guest-[0-9]+$")
    }
}

/// Patterns outside the dialect are refused with a message that says what and where.
@Suite(.timeLimit(.minutes(1)))
struct TextPatternRefusalTests {
    static let refusals: [(String, String)] = [
        // The golden diagnostic `invalid regular expression 'Guest-(': expected ')'` depends on this one.
        ("Guest-(", "expected ')'"), ("(a(b)", "expected ')'"), ("a)", "unmatched ')' at offset 1"),
        ("[abc", "expected ']'"), ("[]", "a class cannot be empty (write '\\]' for a literal ']') at offset 0"),
        ("[^]a]", "a class cannot be empty (write '\\]' for a literal ']') at offset 0"),
        ("*a", "'*' has nothing to repeat at offset 0"), ("a|+b", "'+' has nothing to repeat at offset 2"),
        ("(?:?)", "'?' has nothing to repeat at offset 3"),
        ("{a}", "'{' has nothing to repeat (write '\\{' for a literal brace) at offset 0"),
        ("a**", "a quantifier cannot follow another; put the first in a group '(?:…)' at offset 2"),
        ("a{2}{3}", "a quantifier cannot follow another; put the first in a group '(?:…)' at offset 4"),
        ("a*+", "possessive quantifiers (such as '*+') are not supported at offset 1"),
        ("a{2}+", "possessive quantifiers (such as '*+') are not supported at offset 1"),
        ("^*", "an anchor such as '^', '$' or '\\b' cannot be repeated at offset 1"),
        ("x\\b+", "an anchor such as '^', '$' or '\\b' cannot be repeated at offset 3"),
        ("(a)\\1", "backreferences like '\\1' are not supported at offset 3"),
        ("(?<n>a)\\k<n>", "backreferences like '\\k' are not supported at offset 7"),
        ("(?P=n)", "backreferences and recursion '(?P=…)' are not supported at offset 0"),
        ("a(?=b)", "lookahead '(?=' and '(?!' is not supported at offset 1"),
        ("a(?!b)", "lookahead '(?=' and '(?!' is not supported at offset 1"),
        ("(?<=a)b", "lookbehind '(?<=' and '(?<!' is not supported at offset 0"),
        ("(?<!a)b", "lookbehind '(?<=' and '(?<!' is not supported at offset 0"),
        ("(?>a+)b", "atomic groups '(?>' are not supported at offset 0"),
        ("(?s)a", "only the flag '(?i)', at the start of the pattern, is supported at offset 0"),
        ("(?i:a)", "only the flag '(?i)', at the start of the pattern, is supported at offset 0"),
        ("(?-i)a", "only the flag '(?i)', at the start of the pattern, is supported at offset 0"),
        ("a(?i)b", "'(?i)' is only supported at the very start of the pattern at offset 1"),
        ("(?#note)", "unsupported group syntax '(?#' at offset 0"), ("(?", "unsupported group syntax '(?' at offset 0"),
        ("(?<1a>x)", "a group name must be letters, digits and '_', closed by '>' at offset 0"),
        ("a{1001}", "a repetition count may be at most 1000 at offset 2"),
        ("a{99999999999999999999999}", "a repetition count may be at most 1000 at offset 2"),
        ("a{3,2}", "the repetition {3,2} has its minimum above its maximum at offset 1"),
        (
            "a{,3}",
            "'{' must start a repetition such as {3}, {2,} or {2,5} (write '\\{' for a literal brace) at offset 1"
        ),
        ("a{2", "expected '}' to end the repetition"), ("a{2x}", "expected '}' to end the repetition at offset 3"),
        ("a\\", "the pattern ends with a lone '\\'"), ("\\q", "unknown escape '\\q' at offset 0"),
        ("\\Z", "unknown escape '\\Z' at offset 0"), ("\\0", "unknown escape '\\0' at offset 0"),
        ("\\é", "unknown escape '\\é' at offset 0"),
        ("\\p{L}", "Unicode property classes '\\p{…}' are not supported at offset 0"),
        ("\\Qa.b\\E", "quoting with '\\Q…\\E' is not supported; put '\\' before each symbol at offset 0"),
        ("\\xZZ", "expected a Unicode scalar in hex, as '\\xhh' or '\\x{hex}' at offset 0"),
        ("\\x{110000}", "expected a Unicode scalar in hex, as '\\xhh' or '\\x{hex}' at offset 0"),
        ("\\u{D800}", "expected a Unicode scalar in hex, as '\\uhhhh' or '\\u{hex}' at offset 0"),
        ("a\\u12", "expected a Unicode scalar in hex, as '\\uhhhh' or '\\u{hex}' at offset 1"),
        (
            "[[:alpha:]]",
            "POSIX classes such as '[:alpha:]' are not supported; use \\w, \\d, \\s or a range at offset 1"
        ),
        ("[a[b]]", "write '\\[' for a literal '[' inside brackets (nested classes are not supported) at offset 2"),
        ("[a&&b]", "'&&' inside brackets is set syntax to some engines; escape one of them at offset 2"),
        ("[a--b]", "'--' inside brackets is set syntax to some engines; escape one of them at offset 2"),
        ("[+--]", "'--' inside brackets is set syntax to some engines; escape one of them at offset 2"),
        ("[a~~b]", "'~~' inside brackets is set syntax to some engines; escape one of them at offset 2"),
        ("[\\d-z]", "a range cannot start with a class such as '\\d' (write '\\-' for a literal '-') at offset 3"),
        ("[a-\\d]", "a range cannot end with a class such as '\\d' at offset 1"),
        ("[z-a]", "the range 'z-a' is out of order at offset 1"),
        ("[\\b]", "'\\b' inside brackets is not supported (it is a backspace to some engines) at offset 1"),
        ("[a\\", "the pattern ends with a lone '\\'"),
        (
            String(repeating: "(", count: 101) + String(repeating: ")", count: 101),
            "groups are nested more than 100 deep at offset 100"
        ),
        ("(a{100}){100}", Self.tooLarge), ("((a{1000}){1000}){1000}", Self.tooLarge),
        ("(?:(?:(?:(?:a{10}){10}){10}){10})", Self.tooLarge), (String(repeating: "a", count: 10_000), Self.tooLarge),
    ]
    static let tooLarge =
        "the pattern is too large: it expands to more than 10000 steps (repetition counts multiply; use smaller ones)"

    @Test(arguments: refusals)
    func refuses(pattern: String, description: String) {
        #expect {
            _ = try TextPattern(pattern)
        } throws: { error in
            (error as? RegexSyntaxError)?.description == description
        }
    }

    @Test func errorsCarryTheOffsetApart() throws {
        let error = try #require(throws: RegexSyntaxError.self) { try TextPattern("ab(?=c)") }
        #expect(error.offset == 2)
        #expect(error.message == "lookahead '(?=' and '(?!' is not supported")
        let unclosed = try #require(throws: RegexSyntaxError.self) { try TextPattern("Guest-(") }
        #expect(unclosed.offset == nil)
        #expect(
            "invalid regular expression 'Guest-(': \(unclosed)" == "invalid regular expression 'Guest-(': expected ')'")
    }

    @Test(arguments: [
        "(a{100}){99}", String(repeating: "a", count: 9_999),
        String(repeating: "(", count: 100) + "a" + String(repeating: ")", count: 100),
    ])
    func acceptsPatternsJustInsideTheLimits(pattern: String) throws {
        _ = try TextPattern(pattern)
    }
}

/// Patterns that take a backtracking engine exponential time finish in linear time here.
@Suite(.timeLimit(.minutes(1)))
struct TextPatternLinearTimeTests {
    /// `(pattern, what follows the run of a's, whether it matches)`.
    static let cases: [(String, String, Bool)] = [
        ("^(a+)+$", "b", false), ("^(a+)+$", "", true), ("(?:(?:(?:(?:a*)*)*)*)*b", "b", true),
        ("(?:(?:(?:(?:a*)*)*)*)*b", "", false), ("(a|aa)*c", "b", false), ("(a|aa)*c", "c", true),
        ("(a*)*b", "b", true), ("(a*)*b", "", false), ("^(a|a?)+$", "b", false), ("^(\\w+\\s?)*$", "!", false),
    ]

    @Test(arguments: cases, [20, 25, 100, 1_000, 5_000])
    func finishesFast(testCase: (String, String, Bool), count: Int) throws {
        let (pattern, suffix, expected) = testCase
        let compiled = try TextPattern(pattern)
        let text = String(repeating: "a", count: count) + suffix
        var result = !expected
        // A failure guard, not a benchmark: the old engine took seconds for 18 a's and hours for 25.
        let elapsed = ContinuousClock().measure { result = compiled.matches(text) }
        #expect(result == expected)
        #expect(elapsed < .seconds(1), "\(pattern) against \(count) a's + '\(suffix)' took \(elapsed)")
    }

    @Test func theLargestProgramStaysLinear() throws {
        // `(a?){n}a{n}` against n a's is the classic worst case for backtrackers.
        let compiled = try TextPattern("^(?:a?){500}a{500}$")
        let elapsed = ContinuousClock().measure {
            #expect(compiled.matches(String(repeating: "a", count: 500)))
            #expect(!compiled.matches(String(repeating: "a", count: 499)))
        }
        #expect(elapsed < .seconds(2))
    }

    @Test func longPluginFactsAreSearchedFast() throws {
        let compiled = try TextPattern("(x+x+)+y")
        let text = String(repeating: "x", count: 50_000)
        let elapsed = ContinuousClock().measure { #expect(!compiled.matches(text)) }
        #expect(elapsed < .seconds(2))
    }
}

/// The answers agree with Swift's own `Regex` (a backtracker) where the two dialects overlap and the
/// texts are ASCII without line breaks, so grapheme clusters are scalars and `$` has one meaning.
@Suite(.timeLimit(.minutes(1)))
struct TextPatternCrossCheckTests {
    static let patterns = [
        "abc", "^abc$", "a.c", "^a*b", "a+b+", "(ab|cd)+e", "^[a-c]+$", "[^a-c]", "x?y", "^(a|b)*c$", "a{2}",
        "a{1,3}b", "^\\d{2,}$", "\\w+-\\d", "\\s", "^[\\w.]+$", "(?i)abc", "(?i)^[a-c]+$", "a|^b", "(a|ab)(c|bcd)",
        "^$", "", "b$", "^(?:a|b){3}$", "[.]", "\\.", "a*?b", "^(a+)+$", "[-a]", "^[^\\d\\s]+$", "^(a|ab|abc)d$",
        "c(?:a|b)?$", "^\\W", "(?i)^AB?C?$", "^[a-z]{2,3}-?\\d*$", "ab{0,2}c",
    ]
    static let texts = [
        "", "a", "b", "abc", "ABC", "aab", "abab", "abcd", "xyz", "a.c", "a c", "12", "123", "ab-1", "xxy", "ab cd",
        "aaac", "cab", "Ab", "_", "a-b", "bcd", "acbcd", "abcdd", "ca", "abbc", "xy-", "ab-12",
    ]

    @Test(arguments: patterns)
    func agreesWithSwiftRegex(pattern: String) throws {
        let ours = try TextPattern(pattern)
        let theirs = try Regex(pattern)
        for text in Self.texts {
            let expected = (try? theirs.firstMatch(in: text)) != nil
            #expect(ours.matches(text) == expected, "\(pattern) against '\(text)'")
        }
    }
}
