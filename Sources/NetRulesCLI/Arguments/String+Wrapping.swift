extension StringProtocol where SubSequence == Substring {
    /// Wraps the text to `width` columns, indenting every non-empty line by `indent`.
    ///
    /// This reproduces swift-argument-parser's wrapping exactly, quirks included, because help that wraps one word
    /// differently from every other Swift tool looks wrong to users: a chunk of `width - indent` characters is cut
    /// at its last space (so only the final line may fill the width), existing line breaks are kept, and a word
    /// longer than the width is left whole on its own line.
    ///
    /// - Parameters:
    ///   - width: The total line width, indentation included.
    ///   - indent: The number of spaces before every non-empty line.
    /// - Returns: The wrapped text without a trailing newline.
    func wrapped(to width: Int, indent: Int = 0) -> String {
        // Callers floor the width well above the help column; this only keeps a bad width from looping forever.
        let columns = Swift.max(width - indent, 1)
        var lines: [Substring] = []
        var current = startIndex
        while true {
            let chunk = self[current...].prefix(columns)
            if let lastBreak = chunk.lastIndex(of: "\n") {
                let fitting = self[current..<lastBreak]
                lines.append(contentsOf: fitting.split(separator: "\n", omittingEmptySubsequences: false))
                current = index(after: lastBreak)
            } else if chunk.endIndex == endIndex {
                lines.append(self[current...])
                break
            } else if let lastSpace = chunk.lastIndex(of: " ") {
                lines.append(self[current..<lastSpace])
                current = index(after: lastSpace)
            } else if let nextSpace = self[current...].firstIndex(of: " ") {
                lines.append(self[current..<nextSpace])
                current = index(after: nextSpace)
            } else {
                lines.append(self[current...])
                break
            }
        }
        let padding = String(repeating: " ", count: indent)
        return lines.map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
    }
}
