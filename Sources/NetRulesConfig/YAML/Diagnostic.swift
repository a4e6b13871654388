import NetRulesCore

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

    /// The diagnostic as a user should see it: the one-line form, the source line, a caret, and the hint.
    ///
    /// The caret line copies each tab that comes before the column in the source line and turns every other
    /// scalar into a space, so the caret lands under the column whatever the terminal's tab width. Columns are
    /// Unicode scalars, so a caret after wide characters (CJK, emoji) may sit a little left of the spot. Other
    /// control and bidirectional scalars of the source line show as ``TerminalText`` escapes, with the caret
    /// moved past each escape's width.
    ///
    /// - Parameter source: The text of the file. When it is `nil`, belongs to another file, or has no line at
    ///   the mark, only the one-line form and the hint are rendered.
    /// - Returns: The lines joined with `\n`, without a trailing newline.
    public func rendered(source: SourceText?) -> String {
        rendered(source: source, severityLabel: \.rawValue)
    }

    /// ``rendered(source:)`` with the severity word as `severityLabel` gives it: the command line
    /// colours `error`/`warning` on a terminal; the rest of the text is the same.
    public func rendered(source: SourceText?, severityLabel: (Severity) -> String) -> String {
        var lines = [
            "\(TerminalText.escaped(file)):\(mark.line):\(mark.column): \(severityLabel(severity)): "
                + TerminalText.escaped(message)
        ]
        if let source, source.file == file, let line = source.line(mark.line) {
            let (excerpt, column) = Self.window(of: line, around: mark.column)
            let (shown, caret) = Self.shown(excerpt, caretUnder: column)
            lines.append(shown)
            lines.append(caret)
        }
        if let hint {
            lines.append("  hint: " + TerminalText.escaped(hint))
        }
        return lines.joined(separator: "\n")
    }

    /// The widest excerpt of a source line shown under a diagnostic, in Unicode scalars.
    static let excerptWidth = 120

    /// The line, or a window of `excerptWidth` scalars around `column` marked with `…` at a cut
    /// end, and the column within it: a 6 MB line with 10,000 errors must not print 10,000 copies.
    static func window(of line: String, around column: Int) -> (String, Int) {
        let scalars = Array(line.unicodeScalars)
        guard scalars.count > excerptWidth else { return (line, column) }
        let start = max(0, min(column - 1 - excerptWidth / 2, scalars.count - excerptWidth))
        let end = min(scalars.count, start + excerptWidth)
        var excerpt = start > 0 ? "…" : ""
        excerpt.unicodeScalars.append(contentsOf: scalars[start..<end])
        if end < scalars.count { excerpt += "…" }
        return (excerpt, column - start + (start > 0 ? 1 : 0))
    }

    /// The excerpt as shown (tabs kept, other scalars that need it escaped) and its caret line.
    private static func shown(_ line: String, caretUnder column: Int) -> (String, String) {
        var shown = ""
        var padding = ""
        var remaining = column - 1
        for scalar in line.unicodeScalars {
            let text = scalar == "\t" ? "\t" : TerminalText.escaped(String(scalar))
            shown += text
            guard remaining > 0 else { continue }
            padding += scalar == "\t" ? "\t" : String(repeating: " ", count: text.unicodeScalars.count)
            remaining -= 1
        }
        if remaining > 0 {
            padding += String(repeating: " ", count: remaining)
        }
        return (shown, padding + "^")
    }
}
