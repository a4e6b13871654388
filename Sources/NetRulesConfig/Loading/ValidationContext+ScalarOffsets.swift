import NetRulesCore

extension ValidationContext {
    /// Where the character at `offset` (in Unicode scalars) of `scalar`'s text is in the file.
    ///
    /// A scalar's text is its content after YAML's quoting, escaping and folding, so an offset in
    /// it maps back through the scalar's style: plain and quoted scalars on one line count
    /// columns from the scalar's start (a `''` or an escape stands for one character); literal
    /// (`|`) and folded (`>`) blocks walk the content lines of the file, which needs `source`.
    /// Where the mapping is not certain it returns the scalar's own mark.
    public func mark(ofOffset offset: Int, in scalar: YAMLScalar) -> SourceMark {
        let text = Array(scalar.text.unicodeScalars)
        switch scalar.style {
        case .plain where !text.contains("\n"):
            return SourceMark(line: scalar.mark.line, column: scalar.mark.column + offset)
        case .singleQuoted, .doubleQuoted:
            return quotedMark(ofOffset: offset, in: scalar) ?? scalar.mark
        case .literal, .folded:
            return blockMark(ofOffset: offset, in: scalar) ?? scalar.mark
        default:
            return scalar.mark
        }
    }

    /// Walks a one-line quoted scalar's source: `''` is one quote, a `\` escape one character.
    private func quotedMark(ofOffset offset: Int, in scalar: YAMLScalar) -> SourceMark? {
        guard let line = source?.line(scalar.mark.line) else { return nil }
        let characters = Array(line.unicodeScalars)
        var column = scalar.mark.column  // the opening quote, 1-based
        var index = column  // 0-based index of the first character after the quote
        var produced = 0
        let single = scalar.style == .singleQuoted
        while index < characters.count {
            if produced == offset { return SourceMark(line: scalar.mark.line, column: index + 1) }
            let c = characters[index]
            if single {
                if c == "'" {
                    guard index + 1 < characters.count, characters[index + 1] == "'" else { return nil }
                    index += 2
                } else {
                    index += 1
                }
            } else {
                if c == "\"" { return nil }
                if c == "\\" {
                    guard index + 1 < characters.count else { return nil }
                    switch characters[index + 1] {
                    case "x": index += 4
                    case "u": index += 6
                    case "U": index += 10
                    default: index += 2
                    }
                } else {
                    index += 1
                }
            }
            produced += 1
        }
        column = index + 1
        return produced == offset ? SourceMark(line: scalar.mark.line, column: column) : nil
    }

    /// Walks a block scalar's content lines; each text line starts at the block's indentation.
    private func blockMark(ofOffset offset: Int, in scalar: YAMLScalar) -> SourceMark? {
        guard let source else { return nil }
        var lineNumber = scalar.mark.line + 1
        var indentation: Int?
        var cursor = 0
        while let line = source.line(lineNumber) {
            let characters = Array(line.unicodeScalars)
            let leading = characters.prefix { $0 == " " }.count
            let blank = leading == characters.count
            if indentation == nil && !blank { indentation = leading }
            if let indentation, !blank && leading < indentation { return nil }  // the block ended
            let content = blank ? 0 : characters.count - (indentation ?? 0)
            if let indentation, !blank, offset >= cursor, offset < cursor + content {
                return SourceMark(line: lineNumber, column: indentation + 1 + offset - cursor)
            }
            // A literal block keeps every line break; a folded one turns a break between two
            // text lines into one space and an empty line into one newline.
            if scalar.style == .literal || !blank { cursor += content + 1 }
            lineNumber += 1
        }
        return nil
    }
}
