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
    ///   - section: The manual section, `5` for file formats.
    ///   - description: The one-line description after the name.
    ///   - seeAlso: What SEE ALSO names after netrules(1): the documents the Markdown links to, say.
    static func converted(
        markdown: String, name: String, section: String, description: String, seeAlso: ManualText
    ) -> ManualPage {
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
        page.rawMacro("Xr", ["netrules", "1"])
        page.text(seeAlso)
        return page
    }

    /// A `##` heading as a section name: upper case, except for code, which keeps its spelling.
    private static func sectionName(_ title: ManualText) -> String {
        title.spans.map { span in
            if case .plain(let text) = span { text.uppercased() } else { ManualText([span]).flattened }
        }.joined()
    }
}
