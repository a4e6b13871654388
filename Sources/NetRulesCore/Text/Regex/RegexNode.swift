/// A parsed regular expression: the tree the parser builds and the compiler lowers to a `RegexProgram`.
///
/// Groups leave no trace: only whether the text matches is asked, so a capture is just its contents.
indirect enum RegexNode: Sendable {
    /// Matches the empty string (an empty pattern, group or alternative).
    case empty
    /// One Unicode scalar, exactly (case-folded when the pattern starts with `(?i)`).
    case literal(Unicode.Scalar)
    /// One scalar from a set: `.`, `[a-z]`, `\d` …
    case scalarClass(ScalarClass)
    /// A zero-width test: `^`, `$`, `\b` …
    case assertion(RegexAssertion)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    /// `maximum == nil` is unbounded (`*`, `+`, `{n,}`).
    case repetition(RegexNode, minimum: Int, maximum: Int?)
}

/// A test between two scalars of the text that consumes nothing.
enum RegexAssertion: Sendable {
    /// `^` and `\A`: nothing precedes.
    case startOfText
    /// `$` and `\z`: nothing follows.
    case endOfText
    /// `\b`: a word scalar on exactly one side.
    case wordBoundary
    /// `\B`: word scalars on both sides or on neither.
    case notWordBoundary

    /// Whether the assertion holds between `previous` and `next` (`nil` is the edge of the text).
    func holds(after previous: Unicode.Scalar?, before next: Unicode.Scalar?) -> Bool {
        switch self {
        case .startOfText: return previous == nil
        case .endOfText: return next == nil
        case .wordBoundary: return Self.isWord(previous) != Self.isWord(next)
        case .notWordBoundary: return Self.isWord(previous) == Self.isWord(next)
        }
    }

    private static func isWord(_ scalar: Unicode.Scalar?) -> Bool {
        scalar.map(ScalarClass.Property.word.contains) ?? false
    }
}
