/// An mdoc(7) manual page, written line by line.
///
/// The writer owns escaping, so callers pass text as the user should read it: a backslash stays a backslash, a line
/// cannot turn into a request by starting with a dot, and a macro argument that happens to be a macro name or a
/// delimiter stays a word. Text lines are wrapped to 80 bytes, the longest `mandoc -T lint` accepts without a style
/// message; macro lines are not (mandoc has no limit for them, and a macro line cannot be split safely).
struct ManualPage {
    /// The date every generated page carries in `.Dd`.
    ///
    /// A constant, so that regenerating a page is reproducible; move it forward when the pages change for a
    /// release.
    static let date = "December 1, 2026"

    /// The longest text line written, in bytes.
    static let lineLimit = 80

    /// mdoc's callable macros: an argument spelled like one of them must be escaped to stay a word.
    private static let macroNames: Set<String> = [
        "Ac", "Ad", "An", "Ao", "Ap", "Aq", "Ar", "At", "Bc", "Bf", "Bo", "Bq", "Brc", "Bro", "Brq", "Bsx", "Bx",
        "Cd", "Cm", "Dc", "Dl", "Do", "Dq", "Dv", "Dx", "Ec", "Em", "En", "Eo", "Er", "Es", "Ev", "Fa", "Fc", "Fl",
        "Fn", "Fo", "Fr", "Ft", "Fx", "Ic", "In", "Lb", "Li", "Lk", "Ms", "Mt", "Nm", "No", "Ns", "Nx", "Oc", "Oo",
        "Op", "Ot", "Ox", "Pa", "Pc", "Pf", "Po", "Pq", "Qc", "Ql", "Qo", "Qq", "Sc", "So", "Sq", "St", "Sx", "Sy",
        "Ta", "Tn", "Ux", "Va", "Vt", "Xo", "Xc", "Xr",
    ]

    /// Characters mdoc treats as delimiters when one stands alone as a macro argument.
    private static let delimiters: Set<Character> = ["(", "[", ".", ",", ":", ";", ")", "]", "?", "!", "|"]

    /// Closing delimiters: as separate arguments they attach to the word before them.
    private static let closingDelimiters: Set<Character> = [".", ",", ":", ";", ")", "]", "?", "!"]

    private(set) var lines: [String] = []

    /// The page's source, ending with a newline.
    var source: String {
        lines.joined(separator: "\n") + "\n"
    }

    /// Writes a macro line; `arguments` are escaped and quoted as needed.
    mutating func macro(_ name: String, _ arguments: String...) {
        macro(name, arguments: arguments)
    }

    /// Writes a macro line; `arguments` are escaped and quoted as needed.
    mutating func macro(_ name: String, arguments: [String]) {
        lines.append((["." + name] + arguments.map(Self.argument)).joined(separator: " "))
    }

    /// Writes a macro line whose arguments the caller has already escaped (built by ``inlineArguments(_:code:)``).
    mutating func rawMacro(_ name: String, _ arguments: [String]) {
        lines.append((["." + name] + arguments).joined(separator: " "))
    }

    /// Writes a section of tagged items: `.Sh TITLE`, then a tagged list whose items read
    /// `.It [MARK] TAG` (`Ev` for a variable, `Pa` for a path) followed by their meaning.
    mutating func taggedSection(_ title: String, mark: String? = nil, items: [(tag: String, meaning: String)]) {
        macro("Sh", title)
        macro("Bl", "-tag", "-width", "Ds")
        for (tag, meaning) in items {
            rawMacro("It", (mark.map { [$0] } ?? []) + [Self.argument(tag)])
            text(ManualText(plain: meaning))
        }
        macro("El")
    }

    /// Writes a stretch of filled text: plain words on wrapped text lines, marked-up words on macro lines.
    ///
    /// A word touching markup without a space between (`(‘ssid’),`) is written as one macro line, so the
    /// rendered page keeps exactly the spacing of the source. A sentence ends its line, as mdoc wants (the
    /// formatter then puts sentence spacing after it); an abbreviation's full stop is marked as not ending one.
    mutating func text(_ text: ManualText) {
        var line = ""
        func endLine() {
            if !line.isEmpty { lines.append(line) }
            line = ""
        }
        for chunk in Self.chunks(of: text) {
            guard chunk.allSatisfy({ if case .plain = $0 { true } else { false } }) else {
                endLine()
                lines.append("." + Self.inlineArguments(chunk, code: "Ql", leading: "Pf").joined(separator: " "))
                continue
            }
            let word = chunk.map(\.text).joined()
            var escaped = Self.escaped(word)
            let isAbbreviation = Self.abbreviations.contains { word.lowercased().hasSuffix($0) }
            if isAbbreviation { escaped += "\\&" }
            if !line.isEmpty, line.utf8.count + 1 + escaped.utf8.count > Self.lineLimit {
                endLine()
            }
            line += line.isEmpty ? Self.escapedLineStart(escaped) : " " + escaped
            if !isAbbreviation, Self.endsSentence(word) { endLine() }
        }
        endLine()
    }

    /// Words whose full stop does not end a sentence.
    private static let abbreviations = ["e.g.", "i.e.", "etc.", "vs.", "cf."]

    /// Whether `word` ends a sentence: a full stop, question or exclamation mark, perhaps inside a closing
    /// bracket or quote.
    private static func endsSentence(_ word: String) -> Bool {
        let core = word.reversed().drop { ")]\"'".contains($0) }
        return core.first.map { ".?!".contains($0) } ?? false
    }

    /// Writes literal lines, as in a code block; the caller opens and closes the display.
    mutating func literal(_ line: String) {
        lines.append(Self.escapedLineStart(Self.escaped(line)))
    }

    /// The macro arguments that write `text` inside a macro line (a list item's head, for example).
    ///
    /// - Parameters:
    ///   - text: The words to write.
    ///   - code: The macro that sets code, `Ql` in running text or `Sy` where quotes would clutter a list.
    static func inlineArguments(_ text: ManualText, code: String) -> [String] {
        chunks(of: text).flatMap { inlineArguments($0, code: code, leading: "No") }
    }

    /// The arguments for one chunk of pieces that touch without space between them.
    ///
    /// A plain word before the first mark-up is written with `leading`: `Pf` (a prefix, which may be an opening
    /// bracket) where the chunk starts a macro line, `No` inside one. Closing punctuation after the last piece is
    /// passed as delimiters, which mdoc attaches to the word before them.
    private static func inlineArguments(_ chunk: [Piece], code: String, leading: String) -> [String] {
        var arguments: [String] = []
        var attachesToPrevious = false
        for (index, piece) in chunk.enumerated() {
            if case .plain(let text) = piece {
                if index > 0, index == chunk.count - 1, text.allSatisfy(closingDelimiters.contains) {
                    arguments += text.map(String.init)
                    continue
                }
                if index == 0, chunk.count > 1, leading == "Pf" {
                    arguments += ["Pf", argument(text)]
                    attachesToPrevious = true
                    continue
                }
            }
            if index > 0, !attachesToPrevious { arguments.append("Ns") }
            attachesToPrevious = false
            switch piece {
            case .plain(let text): arguments += ["No", argument(text)]
            case .code(let text) where code == "Ql" && !Self.onlyClosingDelimiters(after: index, in: chunk):
                // `Ql` quotes everything up to the end of the line, macros included; the explicit `So … Sc`
                // pair ends the quote where the code ends.
                arguments += ["So", "Li", codeArgument(text), "Sc"]
            case .code(let text): arguments += [code, codeArgument(text)]
            case .strong(let text): arguments += ["Sy", argument(text)]
            case .link(let url, let text): arguments += ["Lk", argument(url), argument(text)]
            }
        }
        return arguments
    }

    /// A code span as a macro argument; a long one may break after its commas (`\:`), where a formatter would
    /// otherwise run it past the right margin (a JSON example, say).
    private static func codeArgument(_ text: String) -> String {
        let word = argument(text)
        return text.utf8.count > 40 ? word.replacing(",", with: ",\\:") : word
    }

    /// Whether nothing but closing punctuation follows the piece at `index`.
    private static func onlyClosingDelimiters(after index: Int, in chunk: [Piece]) -> Bool {
        chunk[(index + 1)...].allSatisfy { piece in
            if case .plain(let text) = piece { text.allSatisfy(closingDelimiters.contains) } else { false }
        }
    }

    /// A span cut to one word, or one code span (which may hold spaces).
    private enum Piece {
        case plain(String)
        case code(String)
        case strong(String)
        case link(url: String, text: String)

        var text: String {
            switch self {
            case .plain(let text), .code(let text), .strong(let text): text
            case .link(_, let text): text
            }
        }
    }

    /// The text cut at white space into chunks of pieces that touch.
    private static func chunks(of text: ManualText) -> [[Piece]] {
        var chunks: [[Piece]] = []
        var current: [Piece] = []
        func finish() {
            if !current.isEmpty { chunks.append(current) }
            current = []
        }
        for span in text.spans {
            switch span {
            case .plain(let words):
                var word = ""
                for character in words {
                    if character.isWhitespace {
                        if !word.isEmpty { current.append(.plain(word)) }
                        word = ""
                        finish()
                    } else {
                        word.append(character)
                    }
                }
                if !word.isEmpty { current.append(.plain(word)) }
            case .code(let text): current.append(.code(text))
            case .strong(let text): current.append(.strong(text))
            case .link(let url, let text): current.append(.link(url: url, text: text))
            }
        }
        finish()
        return chunks
    }

    /// One macro argument, as a word: escaped, quoted when it holds a space, protected when it looks like a macro
    /// or ends in a delimiter (which mdoc would otherwise detach from it).
    static func argument(_ text: String) -> String {
        var word = escaped(text).replacing("\"", with: "\\(dq")
        if word.isEmpty { return "\"\"" }
        if macroNames.contains(word) || word.allSatisfy(delimiters.contains) {
            word = "\\&" + word
        } else if let last = word.last, delimiters.contains(last) {
            word += "\\&"
        }
        return word.contains(" ") || word.contains("\t") ? "\"\(word)\"" : word
    }

    /// Text with its backslashes escaped and every character beyond ASCII spelled as a `\[uXXXX]` escape, so the
    /// source is ASCII and a line's length is what mandoc measures.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                result += "\\e"
            } else if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }
        }
        return result
    }

    /// A text line protected from being read as a request (a leading `.` or `'`) or as a break (a leading space).
    private static func escapedLineStart(_ line: String) -> String {
        guard let first = line.first, first == "." || first == "'" || first == " " else { return line }
        return "\\&" + line
    }
}
