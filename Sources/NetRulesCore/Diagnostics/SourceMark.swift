/// A position in a rule file, as a 1-based line and column.
///
/// The column counts Unicode scalars, not bytes or grapheme clusters, so `é: x` puts `x` at column 4 whether the
/// file spells `é` as one scalar or two bytes. Marks order by line, then column, which is the order a reader meets
/// them in the file.
public struct SourceMark: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 1-based line number.
    public var line: Int

    /// The 1-based column, counted in Unicode scalars from the start of the line.
    public var column: Int

    /// Creates a mark at the given 1-based line and column.
    ///
    /// - Parameters:
    ///   - line: The 1-based line number.
    ///   - column: The 1-based column, counted in Unicode scalars.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The mark as `line:column`, for example `12:7`.
    public var description: String {
        "\(line):\(column)"
    }

    /// Orders marks by line, then by column.
    public static func < (lhs: SourceMark, rhs: SourceMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
