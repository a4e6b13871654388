/// How `/bin/sh` reads the text around one `{{placeholder}}` of a `run:` command.
///
/// Each context has one rendering that makes the shell see exactly the value's bytes (see
/// `ShellQuoting`); every other place a placeholder can stand is refused when rules load.
public enum ShellQuotingContext: String, Hashable, Sendable, CustomStringConvertible {
    /// Outside any quotes: the value is wrapped in single quotes.
    case unquoted
    /// Inside `"…"`: `$`, `` ` ``, `"` and `\` in the value are backslash-escaped.
    case doubleQuoted = "double-quoted"
    /// Inside `'…'`: each `'` in the value closes the quotes, is escaped, and reopens them.
    case singleQuoted = "single-quoted"

    /// The context's name in messages: `unquoted`, `double-quoted` or `single-quoted`.
    public var description: String { rawValue }
}

/// One finding about a placeholder of a `run:` command: an error refuses the rule, a warning is
/// printed by `check` and the rule still loads.
public struct ShellTemplateIssue: Hashable, Sendable, CustomStringConvertible {
    /// Whether an issue refuses the rule (`error`) or is only reported (`warning`).
    public enum Severity: Hashable, Sendable {
        case error
        case warning
    }

    /// Whether this issue refuses the rule or is only printed by `check`.
    public var severity: Severity
    /// What is wrong, as one sentence for the rule's author.
    public var message: String
    /// The Unicode-scalar offset in the template's source that the issue is about (a placeholder's
    /// `{{`, or the quote that is never closed).
    public var offset: Int
    /// What to write instead, when there is a suggestion.
    public var hint: String?

    /// Creates an issue at `offset`, a Unicode-scalar offset into the template's source.
    public init(_ severity: Severity, _ message: String, offset: Int, hint: String? = nil) {
        self.severity = severity
        self.message = message
        self.offset = offset
        self.hint = hint
    }

    /// `error at N: message` or `warning at N: message`.
    public var description: String {
        "\(severity == .error ? "error" : "warning") at \(offset): \(message)"
    }
}
