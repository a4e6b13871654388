import NetRulesCore
import NetRulesSystem

extension CapturedOutput {
    /// The bytes for a log line: escaped, trimmed, with a note when some were discarded.
    var logText: String {
        var trimmed = bytes[...]
        while let last = trimmed.last, last == 0x0A || last == 0x0D { trimmed = trimmed.dropLast() }
        // Escaped, so a process cannot forge log lines with newlines or terminal escapes.
        var text = TerminalText.escaped(bytes: Array(trimmed))
        if discardedCount > 0 { text += " … (\(discardedCount) more bytes)" }
        return text
    }
}
