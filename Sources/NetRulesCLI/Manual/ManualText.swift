/// A run of prose with the little markup manual pages need: code, emphasis and links.
///
/// Both pages are built from it: the command reference from the help strings (plain text only), the rule
/// language page from the Markdown of docs/rules.md (whose inline code, `**strong**` and links it keeps).
struct ManualText: Sendable, Equatable {
    /// One stretch of a run, in reading order.
    enum Span: Sendable, Equatable {
        /// Ordinary words, white space included.
        case plain(String)
        /// Literal text, such as a fact key or an example (Markdown's `` `code` ``).
        case code(String)
        /// Emphasised text (Markdown's `**strong**`).
        case strong(String)
        /// An absolute URL with the text that shows it.
        case link(url: String, text: String)
    }

    var spans: [Span]

    init(_ spans: [Span]) {
        self.spans = spans
    }

    /// Text without markup.
    init(plain text: String) {
        self.spans = [.plain(text)]
    }

    /// Reads Markdown inline markup: `` `code` ``, `**strong**`, `[text](url)`, and backslash escapes.
    ///
    /// Links to other documents of the repository keep only their text: a manual page cannot follow them,
    /// and the text names the document.
    init(markdown: String) {
        var spans: [Span] = []
        var plain = ""
        var rest = Substring(markdown)
        func flush() {
            if !plain.isEmpty { spans.append(.plain(plain)) }
            plain = ""
        }
        while let character = rest.first {
            if character == "`", let end = rest.dropFirst().firstIndex(of: "`") {
                flush()
                // A code span may run over a line break, which stands for a space (CommonMark).
                let code = rest[rest.index(after: rest.startIndex)..<end]
                spans.append(.code(String(code.map { $0 == "\n" ? " " : $0 })))
                rest = rest[rest.index(after: end)...]
            } else if rest.hasPrefix("**"), let end = rest.dropFirst(2).firstRange(of: "**") {
                flush()
                spans.append(.strong(String(rest[rest.index(rest.startIndex, offsetBy: 2)..<end.lowerBound])))
                rest = rest[end.upperBound...]
            } else if character == "[", let link = Self.link(at: rest) {
                if link.url.hasPrefix("http://") || link.url.hasPrefix("https://") {
                    flush()
                    spans.append(.link(url: link.url, text: link.text))
                } else {
                    plain += link.text
                }
                rest = link.rest
            } else if character == "\\", let next = rest.dropFirst().first, next.isASCII, next.isPunctuation {
                plain.append(next)
                rest = rest.dropFirst(2)
            } else {
                plain.append(character)
                rest = rest.dropFirst()
            }
        }
        flush()
        self.spans = spans
    }

    /// `[text](url)` at the start of `text`, with what follows it.
    private static func link(at text: Substring) -> (text: String, url: String, rest: Substring)? {
        guard let close = text.firstIndex(of: "]"), text[close...].dropFirst().first == "(",
            let end = text[close...].firstIndex(of: ")")
        else { return nil }
        let label = text[text.index(after: text.startIndex)..<close]
        let url = text[text.index(close, offsetBy: 2)..<end]
        guard !label.contains("\n"), !url.contains(" ") else { return nil }
        return (String(ManualText(markdown: String(label)).flattened), String(url), text[text.index(after: end)...])
    }

    /// The words of the run without any markup.
    var flattened: String {
        spans.map { span in
            switch span {
            case .plain(let text), .code(let text), .strong(let text): text
            case .link(_, let text): text
            }
        }.joined()
    }

    /// Whether the run holds nothing but white space.
    var isBlank: Bool {
        flattened.allSatisfy(\.isWhitespace)
    }
}
