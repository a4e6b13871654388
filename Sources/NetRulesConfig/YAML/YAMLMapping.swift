import NetRulesCore

/// A YAML mapping: key–value pairs in source order, each key with its own mark.
///
/// Keys are always scalars and, in a tree that ``YAMLDocument/parse(_:file:)`` built, unique by text: the parser
/// reports a non-scalar or repeated key and leaves that entry out. Source order is kept so diagnostics and
/// listings follow the file.
public struct YAMLMapping: Sendable {
    /// The entries in the order they appear in the file.
    public var entries: [(key: YAMLScalar, value: YAMLNode)]

    /// Where the mapping starts: its first key for a block mapping, its `{` for a flow mapping.
    public var mark: SourceMark

    /// Creates a mapping.
    ///
    /// - Parameters:
    ///   - entries: The entries in source order.
    ///   - mark: Where the mapping starts.
    public init(entries: [(key: YAMLScalar, value: YAMLNode)], mark: SourceMark) {
        self.entries = entries
        self.mark = mark
    }

    /// The value of the first entry whose key text is `key`, or `nil` when there is none.
    ///
    /// The lookup compares key text only, so `"ssid"` and `ssid` are the same key. It is a linear scan, which
    /// suits the handful of keys a rule has.
    public subscript(key: String) -> YAMLNode? {
        entry(key)?.value
    }

    /// The first entry whose key text is `key`, or `nil` when there is none.
    ///
    /// Use this rather than the subscript when a diagnostic should point at the key itself.
    ///
    /// - Parameter key: The key text to look for.
    /// - Returns: The key scalar, with its mark, and the value.
    public func entry(_ key: String) -> (key: YAMLScalar, value: YAMLNode)? {
        entries.first { $0.key.text == key }
    }
}
