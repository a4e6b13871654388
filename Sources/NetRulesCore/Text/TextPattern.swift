/// A regular expression from a rule file, compiled once at load time.
///
/// Matching searches (like `grep`): anchor with `^…$` to match the whole value. The text is read as
/// Unicode scalars.
///
/// The engine is netrules' own and runs in time linear in the text (see `RegexMatcher`): SSIDs and
/// plugin facts come from the network, and with a backtracking engine a pattern such as `^(a+)+$`
/// against twenty-odd `a`s and a `b` kept the daemon busy for minutes. The price is a smaller dialect:
///
/// - literals, `.` (any scalar but a newline), `^` and `$` (start and end of the text), `\A`, `\z`,
///   `\b`, `\B`;
/// - groups `(…)`, `(?:…)`, `(?<name>…)`, alternation `|`;
/// - `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` with counts up to 1000, and their lazy forms (`*?`);
/// - brackets `[abc]`, `[^a-z]` with escapes; `\d`, `\w`, `\s` and their negations (Unicode-aware);
/// - escapes `\t \n \r \f \v`, `\xhh`, `\x{…}`, `\uhhhh`, `\u{…}` and `\` before any ASCII symbol;
/// - a leading `(?i)` for case-insensitive matching.
///
/// Backreferences, lookaround, atomic groups, possessive quantifiers, other flags, POSIX and nested
/// classes, and unknown escapes are refused with a `RegexSyntaxError` rather than read some other way.
public struct TextPattern: Sendable {
    /// The expression as written.
    public let source: String
    private let program: RegexProgram

    /// Compiles a pattern.
    ///
    /// - Parameter source: the expression as written in the rule file.
    /// - Throws: a `RegexSyntaxError` saying what is wrong and where, when the pattern is outside the
    ///   dialect above or would compile to more than 10,000 instructions.
    public init(_ source: String) throws {
        self.source = source
        self.program = try RegexCompiler.compile(RegexParser.parse(source))
    }

    /// Whether the pattern matches somewhere in the text.
    ///
    /// Takes time proportional to the pattern's compiled size times the text's length in scalars.
    public func matches(_ text: String) -> Bool {
        RegexMatcher(program: program).matches(text)
    }
}
