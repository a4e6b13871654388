/// How a scalar was written in the source.
///
/// The YAML layer keeps the style because it does no typing of its own: the schema layer needs it to tell the
/// plain `null` (YAML's null) from the quoted `"null"` (the four-letter string).
public enum YAMLScalarStyle: Hashable, Sendable {
    /// Written without quotes, as in `ssid: Office`.
    case plain

    /// Written in single quotes, as in `ssid: 'Office'`.
    case singleQuoted

    /// Written in double quotes, as in `ssid: "Office"`.
    case doubleQuoted

    /// A literal block scalar introduced by `|`, which keeps its line breaks.
    case literal

    /// A folded block scalar introduced by `>`, which joins its lines with spaces.
    case folded
}
