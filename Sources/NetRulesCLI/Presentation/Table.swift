/// Aligned columns for human output.
package enum Table {
    /// The rows with their columns aligned.
    ///
    /// - Parameters:
    ///   - width: The terminal's width in columns, or nil (a pipe, a file: lines as long as they are,
    ///     so scripts see one row a line). When the table is wider, the `wrapping` columns narrow,
    ///     the widest first, down to `minimumWrapped`, and their cells continue on the next lines
    ///     (at a space where there is one), the other cells of those lines blank.
    ///   - wrapping: The columns that may wrap (their text reads as words: not names, not numbers).
    ///   - paint: Applied to each cell after the widths are measured (colour escapes take no
    ///     columns): `(row, column, cell)` to the text shown; a wrapped cell is painted line by line.
    package static func render(
        _ rows: [[String]], gap: Int = 2, width: Int? = nil, wrapping: Set<Int> = [], minimumWrapped: Int = 16,
        paint: (Int, Int, String) -> String = { $2 }
    ) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        if let width { narrow(&widths, to: width, gap: gap, wrapping: wrapping, minimum: minimumWrapped) }
        var lines: [String] = []
        for (r, row) in rows.enumerated() {
            let pieces = row.enumerated().map { i, cell in
                wrapping.contains(i) && cell.count > widths[i] ? wrap(cell, to: widths[i]) : [cell]
            }
            let height = pieces.map(\.count).max() ?? 1
            for line in 0..<height {
                var text = ""
                for (i, cellLines) in pieces.enumerated() {
                    let cell = line < cellLines.count ? cellLines[line] : ""
                    // A continuation line's blank cells are not painted.
                    let shown = line == 0 || !cell.isEmpty ? paint(r, i, cell) : ""
                    text +=
                        i == pieces.count - 1
                        ? shown : shown + String(repeating: " ", count: max(0, widths[i] - cell.count) + gap)
                }
                // A continuation line whose last cells are blank ends at its last text.
                lines.append(line == 0 ? text : String(text.reversed().drop { $0 == " " }.reversed()))
            }
        }
        return lines
    }

    /// Narrows the widest wrapping column, one column at a time, until the row fits `width` or
    /// every wrapping column is at `minimum` (a table that still does not fit runs over).
    private static func narrow(_ widths: inout [Int], to width: Int, gap: Int, wrapping: Set<Int>, minimum: Int) {
        var total: Int { widths.reduce(0, +) + gap * (widths.count - 1) }
        while total > width {
            guard
                let widest = wrapping.filter({ $0 < widths.count && widths[$0] > minimum })
                    .max(by: { widths[$0] < widths[$1] })
            else { return }
            widths[widest] = max(minimum, widths[widest] - (total - width))
        }
    }

    /// `text` in lines of at most `width` characters, broken after a space where the line has one
    /// (the space dropped), else at `width`.
    static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0 else { return [text] }
        var lines: [String] = []
        var rest = Substring(text)
        while rest.count > width {
            let limit = rest.index(rest.startIndex, offsetBy: width)
            if let space = rest[rest.startIndex...limit].lastIndex(of: " "), space > rest.startIndex {
                lines.append(String(rest[..<space]))
                rest = rest[rest.index(after: space)...]
            } else {
                lines.append(String(rest[..<limit]))
                rest = rest[limit...]
            }
        }
        lines.append(String(rest))
        return lines
    }
}
