/// A regular expression from a rule file, compiled once at load time.
///
/// Matching searches (like `grep`): anchor with `^…$` to match the whole value.
///
/// `@unchecked Sendable`: `Regex` is an immutable value whose lazily lowered program is published
/// atomically by the regex engine; matching never mutates it, so sharing across tasks is safe.
public struct TextPattern: @unchecked Sendable {
    /// The expression as written.
    public let source: String
    private let regex: Regex<AnyRegexOutput>

    /// Compiles a pattern.
    /// - Throws: the regex syntax error, whose description says what is wrong.
    public init(_ source: String) throws {
        self.source = source
        self.regex = try Regex(source)
    }

    /// Whether the pattern matches somewhere in the text.
    public func matches(_ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }
}
