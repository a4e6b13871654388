import NetRulesCore

/// A YAML sequence (a list), in source order.
public struct YAMLSequence: Sendable {
    /// The items in the order they appear in the file.
    public var items: [YAMLNode]

    /// Where the sequence starts: its first `-` for a block sequence, its `[` for a flow sequence.
    public var mark: SourceMark

    /// Creates a sequence.
    ///
    /// - Parameters:
    ///   - items: The items in source order.
    ///   - mark: Where the sequence starts.
    public init(items: [YAMLNode], mark: SourceMark) {
        self.items = items
        self.mark = mark
    }
}
