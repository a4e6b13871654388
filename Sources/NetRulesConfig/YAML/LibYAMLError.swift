internal import CYAML
import NetRulesCore

/// The error state of a libyaml parser after `yaml_parser_parse` failed, copied out of the C struct.
struct LibYAMLError: Error {
    enum Kind {
        /// Bad input bytes: invalid UTF-8 or a control character. libyaml gives a byte offset, not a mark.
        case reader

        /// A scanner or parser error, with a problem mark and usually a context.
        case syntax

        /// libyaml could not allocate memory.
        case memory
    }

    var kind: Kind
    var problem: String
    var problemMark: SourceMark
    var problemOffset: Int
    var problemValue: Int
    var context: String?
    var contextMark: SourceMark

    init(_ parser: yaml_parser_t) {
        switch parser.error {
        case YAML_READER_ERROR: kind = .reader
        case YAML_MEMORY_ERROR: kind = .memory
        default: kind = .syntax
        }
        problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        problemMark = SourceMark(parser.problem_mark)
        problemOffset = Int(parser.problem_offset)
        problemValue = Int(parser.problem_value)
        context = parser.context.map { String(cString: $0) }
        contextMark = SourceMark(parser.context_mark)
    }

    /// The error as a diagnostic a user can act on.
    ///
    /// - Parameters:
    ///   - file: The file as the user named it.
    ///   - source: The file's text, used to place reader errors and to choose hints.
    func diagnostic(file: String, source: SourceText) -> Diagnostic {
        switch kind {
        case .memory:
            return Diagnostic("libyaml ran out of memory while reading the file", file: file, mark: .start)
        case .reader where problem == "control characters are not allowed":
            let hex = String(problemValue, radix: 16, uppercase: true)
            let code = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            return Diagnostic(
                "control character U+\(code) is not allowed in YAML",
                file: file,
                mark: source.mark(atByteOffset: problemOffset)
            )
        case .reader:
            return encodingDiagnostic(file: file, source: source)
        case .syntax:
            if let colon = unquotedColonInValue(source: source) {
                return Diagnostic(
                    "the value of '\(colon.key):' contains ': ', which YAML reads as the start of another key",
                    file: file, mark: problemMark, hint: "quote the value: \(colon.quoted)")
            }
            var message = "invalid YAML: \(problem)"
            if let context {
                message += " \(context)"
                if contextMark != problemMark {
                    message += " that starts at \(contextMark)"
                }
            }
            return Diagnostic(message, file: file, mark: problemMark, hint: syntaxHint(source: source))
        }
    }

    /// An encoding error points at the first bad byte (found with Swift's own decoder, because libyaml's offset can
    /// name a later byte of the sequence), so the caret sits under it; a UTF-16 byte-order mark concerns the whole
    /// file and points at 1:1.
    private func encodingDiagnostic(file: String, source: SourceText) -> Diagnostic {
        if source.startsWithUTF16ByteOrderMark {
            return Diagnostic(
                "the file is not valid UTF-8: it starts with a UTF-16 byte-order mark",
                file: file,
                mark: .start,
                hint: "save the file as UTF-8"
            )
        }
        let (offset, byte) = source.firstInvalidUTF8() ?? (problemOffset, problemValue)
        let hex = String(byte, radix: 16, uppercase: true)
        let paddedHex = hex.count < 2 ? "0" + hex : hex
        let position = source.mark(atByteOffset: offset)
        return Diagnostic(
            "the file is not valid UTF-8: byte 0x\(paddedHex) at \(position) is not part of a UTF-8 character",
            file: file,
            mark: position,
            hint: "save the file as UTF-8"
        )
    }

    /// `- run: echo to: you` or `run: echo to: you`: a plain scalar value that holds `: `, which
    /// libyaml rejects as a mapping inside a plain scalar. Most often a shell command (`run:`) with
    /// a colon in it; the fix is to quote it, so the key and the value quoted are returned.
    private func unquotedColonInValue(source: SourceText) -> (key: String, quoted: String)? {
        guard problem == "mapping values are not allowed in this context",
            let line = source.line(problemMark.line)
        else { return nil }
        let scalars = Array(line.unicodeScalars)
        var index = 0
        while index < scalars.count, scalars[index] == " " { index += 1 }
        while index + 1 < scalars.count, scalars[index] == "-", scalars[index + 1] == " " {
            index += 2
            while index < scalars.count, scalars[index] == " " { index += 1 }
        }
        let keyStart = index
        while index < scalars.count,
            scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])
                || scalars[index] == "_" || scalars[index] == "-" || scalars[index] == "."
        {
            index += 1
        }
        guard index > keyStart, index + 1 < scalars.count, scalars[index] == ":", scalars[index + 1] == " " else {
            return nil
        }
        let key = String(String.UnicodeScalarView(scalars[keyStart..<index]))
        index += 1
        while index < scalars.count, scalars[index] == " " { index += 1 }
        // The value must be a plain scalar that starts before the problem (the second `: `).
        guard index < scalars.count, index < problemMark.column - 1,
            !["'", "\"", "{", "[", "|", ">", "&", "*", "!", "#"].contains(scalars[index])
        else { return nil }
        // Up to a comment (` #`), which stays a comment, without trailing spaces; `'` doubled.
        var end = index
        while end < scalars.count, !(scalars[end] == "#" && scalars[end - 1] == " ") { end += 1 }
        while end > index, scalars[end - 1] == " " { end -= 1 }
        var quoted = String.UnicodeScalarView(["'"])
        for scalar in scalars[index..<end] {
            quoted.append(scalar)
            if scalar == "'" { quoted.append(scalar) }
        }
        quoted.append("'")
        return (key, "\(key): \(String(quoted))")
    }

    private func syntaxHint(source: SourceText) -> String? {
        switch problem {
        case "mapping values are not allowed in this context", "did not find expected key":
            // A list item where none can start: most often the key that opens the list above it
            // (`do:`) was deleted, and the item ran into the value before it.
            if let line = source.line(problemMark.line), line.drop(while: { $0 == " " }).hasPrefix("- ") {
                return "this line starts a list item, but nothing above it opens a list: is a key such as "
                    + "'do:' missing on the line before?"
            }
            return problem == "did not find expected key"
                ? "check the indentation of this line"
                : "quote a value that contains ': ', or check the indentation of this line"
        case "did not find expected <document start>":
            return "the document ended before this line, and a rule file holds one YAML document"
        case "found a tab character that violates indentation":
            return "indent with spaces; YAML does not allow tabs in indentation"
        case "found character that cannot start any token":
            switch source.line(problemMark.line)?.unicodeScalars.dropFirst(problemMark.column - 1).first {
            case "\t": return "indent with spaces; YAML does not allow tabs in indentation"
            case let scalar? where scalar == "@" || scalar == "`": return "quote a value that starts with '\(scalar)'"
            default: return nil
            }
        default:
            return nil
        }
    }
}

extension SourceMark {
    /// The first column of the first line, where problems with the file as a whole are reported.
    static let start = SourceMark(line: 1, column: 1)
}
