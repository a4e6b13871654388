import NetRulesCore

extension Array where Element == Diagnostic {
    /// The diagnostics in the order a reader meets them: by file, then line, then column, then message.
    ///
    /// The sort is stable, so diagnostics that tie on all four keep the order in which they were found.
    ///
    /// - Returns: A sorted copy of the array.
    public func sortedByPosition() -> [Diagnostic] {
        enumerated()
            .sorted { lhs, rhs in
                let left = (lhs.element.file, lhs.element.mark.line, lhs.element.mark.column, lhs.element.message)
                let right = (rhs.element.file, rhs.element.mark.line, rhs.element.mark.column, rhs.element.message)
                return left != right ? left < right : lhs.offset < rhs.offset
            }
            .map(\.element)
    }
}
