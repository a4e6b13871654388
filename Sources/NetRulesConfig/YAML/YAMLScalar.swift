import NetRulesCore

/// A leaf of the YAML tree: the text exactly as libyaml read it, with its style and position.
///
/// The text is never converted: `no`, `0123`, `1.0` and `yes` stay the strings as written (YAML 1.1's implicit
/// typing is the trap that turns an SSID called `no` into `false`). Escapes in double-quoted scalars and folding in
/// block scalars are already applied, because that is YAML syntax rather than typing.
public struct YAMLScalar: Hashable, Sendable {
    // The one-byte style is stored last so it packs into the tail of the struct: that makes every node and mapping
    // entry 8 bytes smaller (40 and 80 bytes), about a tenth of a parsed tree's memory.

    /// The scalar's content, after YAML's quoting, escaping and folding rules.
    public var text: String

    /// Where the scalar starts: its first character, its opening quote, or its `|`/`>` indicator.
    public var mark: SourceMark

    /// How the scalar was written; the schema layer uses it to tell `"null"` from `null`.
    public var style: YAMLScalarStyle

    /// Creates a scalar.
    ///
    /// - Parameters:
    ///   - text: The scalar's content.
    ///   - style: How the scalar was written.
    ///   - mark: Where the scalar starts.
    public init(text: String, style: YAMLScalarStyle, mark: SourceMark) {
        self.text = text
        self.style = style
        self.mark = mark
    }

    /// Whether the scalar is YAML's null.
    ///
    /// Only a plain `~`, `null`, `Null` or `NULL`, or an empty plain scalar (as in `ssid:` with nothing after it),
    /// is null. A quoted `"null"` or `''` is a string, so a user can always say "this text" by quoting it.
    public var isNull: Bool {
        guard style == .plain else { return false }
        switch text {
        case "", "~", "null", "Null", "NULL": return true
        default: return false
        }
    }
}
