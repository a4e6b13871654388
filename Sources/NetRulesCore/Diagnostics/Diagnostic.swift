/// A problem found in a rule file, with where it is and how to fix it.
///
/// Every stage of loading a rule file reports problems as diagnostics and keeps going, so a user sees all of them
/// at once, sorted by ``Array/sortedByPosition()``. The one-line ``description`` follows the compiler convention
/// `file:line:column: severity: message` that editors and terminals turn into links;
/// ``rendered(source:)`` adds the source line and a caret.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Hashable, Sendable {
        /// The file cannot be used as written.
        case error

        /// The file can be used, but something in it is probably not what the user meant.
        case warning
    }

    /// How serious the problem is.
    public var severity: Severity

    /// What is wrong, as one sentence in lower case without a final period, like a compiler message.
    public var message: String

    /// The file as the user named it, for example `rules/office.yaml`, so the message points where they look.
    public var file: String

    /// Where the problem is; a key's own mark when the key is what is wrong.
    public var mark: SourceMark

    /// The path to the offending node, for example `rules[2].when.ssid`; list indices count from 0.
    public var keyPath: String?

    /// A suggestion for fixing the problem, for example `did you mean 'cooldown'?`.
    public var hint: String?

    /// Creates a diagnostic.
    ///
    /// - Parameters:
    ///   - severity: How serious the problem is; an error unless stated.
    ///   - message: What is wrong.
    ///   - file: The file as the user named it.
    ///   - mark: Where the problem is.
    ///   - keyPath: The path to the offending node, if known.
    ///   - hint: A suggestion for fixing the problem.
    public init(
        _ severity: Severity = .error,
        _ message: String,
        file: String,
        mark: SourceMark,
        keyPath: String? = nil,
        hint: String? = nil
    ) {
        self.severity = severity
        self.message = message
        self.file = file
        self.mark = mark
        self.keyPath = keyPath
        self.hint = hint
    }

    /// Creates an error diagnostic.
    ///
    /// Swift binds unlabeled arguments left to right, so the severity's default in the other initializer can never
    /// be used without the message moving into its place; this overload is what makes `Diagnostic("…", file: …)`
    /// compile.
    ///
    /// - Parameters:
    ///   - message: What is wrong.
    ///   - file: The file as the user named it.
    ///   - mark: Where the problem is.
    ///   - keyPath: The path to the offending node, if known.
    ///   - hint: A suggestion for fixing the problem.
    public init(_ message: String, file: String, mark: SourceMark, keyPath: String? = nil, hint: String? = nil) {
        self.init(.error, message, file: file, mark: mark, keyPath: keyPath, hint: hint)
    }

    /// The diagnostic on one line: `rules/office.yaml:12:7: error: message`.
    ///
    /// A message may quote a value from the file (an unknown key, a bad SSID) and the file is named
    /// as the user named it, so both go through ``TerminalText``; `check --json` keeps them exact.
    public var description: String {
        "\(TerminalText.escaped(file)):\(mark.line):\(mark.column): \(severity.rawValue): \(TerminalText.escaped(message))"
    }
}
