/// One block of a Markdown document, as far as docs/rules.md needs.
enum MarkdownBlock: Sendable {
    /// A `#` heading; `level` counts the `#`s.
    case heading(level: Int, title: String)
    /// A paragraph's lines, joined with newlines.
    case paragraph(String)
    /// A fenced or indented code block's lines, as written.
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
