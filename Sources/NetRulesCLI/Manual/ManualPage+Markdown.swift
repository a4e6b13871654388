extension ManualPage {
    /// `netrules-rules.5`: the rule language, converted from the Markdown of docs/rules.md.
    ///
    /// The converter knows the Markdown that document uses, and nothing more: `#` headings (the first one is the
    /// title, `##` become sections, deeper ones subsections), paragraphs, fenced and indented code blocks, `-`
    /// lists with indented continuation lines, tables, and inline code, `**strong**` and links. A table becomes a
    /// tagged list (its first column the tag, the others the body): a terminal is too narrow for the columns of
    /// the condition table. HTML comments are left out.
    ///
    /// - Parameters:
    ///   - markdown: The text of docs/rules.md.
    ///   - name: The page's name, `netrules-rules`.
    ///   - description: The one-line description after the name.
    static func converted(markdown: String, name: String, section: String, description: String) -> ManualPage {
        var page = ManualPage()
        page.macro("Dd", date)
        page.macro("Dt", name.uppercased(), section)
        page.macro("Os")
        page.macro("Sh", "NAME")
        page.macro("Nm", name)
        page.macro("Nd", description)
        page.macro("Sh", "DESCRIPTION")
        var previous: MarkdownBlock? = nil
        for block in MarkdownBlock.blocks(of: markdown) {
            switch block {
            case .heading(let level, _) where level == 1:
                continue
            case .heading(let level, let title):
                let text = ManualText(markdown: title)
                page.macro(level == 2 ? "Sh" : "Ss", level == 2 ? Self.sectionName(text) : text.flattened)
            case .paragraph(let text):
                switch previous {
                case nil, .heading?: break
                default: page.macro("Pp")
                }
                page.text(ManualText(markdown: text))
            case .code(let lines):
                page.macro("Bd", "-literal", "-offset", "indent")
                for line in lines { page.literal(line) }
                page.macro("Ed")
            case .list(let items):
                page.macro("Bl", "-bullet")
                for item in items {
                    page.macro("It")
                    page.text(ManualText(markdown: item))
                }
                page.macro("El")
            case .table(let rows):
                page.macro("Bl", "-tag", "-width", "Ds")
                for row in rows {
                    page.rawMacro("It", inlineArguments(ManualText(markdown: row.first ?? ""), code: "Sy"))
                    let body = row.dropFirst().filter { !$0.isEmpty }.joined(separator: "; ")
                    page.text(ManualText(markdown: body))
                }
                page.macro("El")
            }
            previous = block
        }
        page.macro("Sh", "SEE ALSO")
        page.macro("Xr", "netrules", "1")
        return page
    }

    /// A `##` heading as a section name: upper case, except for code, which keeps its spelling.
    private static func sectionName(_ title: ManualText) -> String {
        title.spans.map { span in
            if case .plain(let text) = span { text.uppercased() } else { ManualText([span]).flattened }
        }.joined()
    }
}

/// One block of a Markdown document, as far as docs/rules.md needs.
enum MarkdownBlock: Sendable {
    case heading(level: Int, title: String)
    /// A paragraph's lines, joined with newlines.
    case paragraph(String)
    case code([String])
    /// Each item's text, continuation lines joined with newlines.
    case list([String])
    /// Each row's cells; the header row and the separator row are left out.
    case table([[String]])

    /// The blocks of `markdown`, in order.
    static func blocks(of markdown: String) -> [MarkdownBlock] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [MarkdownBlock] = []
        var index = 0
        var paragraph: [String] = []
        func endParagraph() {
            if !paragraph.isEmpty { blocks.append(.paragraph(paragraph.joined(separator: "\n"))) }
            paragraph = []
        }
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.drop { $0 == " " }
            if line.hasPrefix("```") {
                endParagraph()
                var code: [String] = []
                index += 1
                while index < lines.count, !lines[index].hasPrefix("```") {
                    code.append(lines[index])
                    index += 1
                }
                blocks.append(.code(code))
                index += 1
            } else if trimmed.isEmpty {
                endParagraph()
                index += 1
            } else if line.hasPrefix("<!--") {
                endParagraph()
                while index < lines.count, !lines[index].contains("-->") { index += 1 }
                index += 1
            } else if line.hasPrefix("#") {
                endParagraph()
                let level = line.prefix { $0 == "#" }.count
                blocks.append(.heading(level: level, title: String(line.dropFirst(level).drop { $0 == " " })))
                index += 1
            } else if line.hasPrefix("    "), paragraph.isEmpty {
                var code: [String] = []
                while index < lines.count, lines[index].hasPrefix("    ") || lines[index].isEmpty {
                    code.append(String(lines[index].dropFirst(4)))
                    index += 1
                }
                while code.last?.isEmpty == true { code.removeLast() }
                blocks.append(.code(code))
            } else if line.hasPrefix("|") {
                endParagraph()
                var rows: [[String]] = []
                var first = true
                while index < lines.count, lines[index].hasPrefix("|") {
                    let cells = Self.cells(of: lines[index])
                    let isSeparator = cells.allSatisfy { $0.allSatisfy { "-: ".contains($0) } }
                    let nextIsSeparator =
                        first && index + 1 < lines.count && lines[index + 1].hasPrefix("|")
                        && Self.cells(of: lines[index + 1]).allSatisfy { $0.allSatisfy { "-: ".contains($0) } }
                    if !isSeparator, !nextIsSeparator { rows.append(cells) }
                    first = false
                    index += 1
                }
                blocks.append(.table(rows))
            } else if line.hasPrefix("- ") {
                endParagraph()
                var items: [String] = []
                while index < lines.count {
                    let item = lines[index]
                    if item.hasPrefix("- ") {
                        items.append(String(item.dropFirst(2)))
                    } else if item.hasPrefix("  "), !items.isEmpty, !item.allSatisfy({ $0 == " " }) {
                        items[items.count - 1] += "\n" + item.drop { $0 == " " }
                    } else {
                        break
                    }
                    index += 1
                }
                blocks.append(.list(items))
            } else {
                paragraph.append(String(trimmed))
                index += 1
            }
        }
        endParagraph()
        return blocks
    }

    /// The cells of a table row, with `\|` read as a literal bar.
    private static func cells(of row: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var escaped = false
        for character in row.dropFirst() {
            if escaped {
                if character != "|" { cell.append("\\") }
                cell.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(cell.trimmingSpaces)
                cell = ""
            } else {
                cell.append(character)
            }
        }
        if !cell.allSatisfy({ $0 == " " }) { cells.append(cell.trimmingSpaces) }
        return cells
    }
}

extension String {
    /// The string without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
