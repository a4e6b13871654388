import NetRulesCore

/// Rendering a diagnostic with its source line: the value is NetRulesCore's (the daemon core reports it
/// without knowing rule files), the source text is the YAML layer's.
extension Diagnostic {
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
