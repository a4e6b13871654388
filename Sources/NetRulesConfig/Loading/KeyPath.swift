/// Where a value sits in a rule file, as users read it: `rules[2].when.all[0].ssid`.
public struct KeyPath: Hashable, Sendable, CustomStringConvertible {
    private var text: String

    /// The file's root.
    public static let root = KeyPath(text: "")

    private init(text: String) { self.text = text }

    /// The path of a mapping key below this one.
    public func key(_ name: String) -> KeyPath {
        KeyPath(text: text.isEmpty ? name : "\(text).\(name)")
    }

    /// The path of a list item below this one (0-based, as in JSON).
    public func index(_ i: Int) -> KeyPath {
        KeyPath(text: "\(text)[\(i)]")
    }

    public var description: String { text }
}
