/// A JSON-shaped value from a rule file: a webhook's `json:` body or a plugin's options.
///
/// Strings may hold templates (`"{{bssid}}"`); they are rendered when the action runs.
public indirect enum ConfigValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([ConfigValue])
    /// Keys in the order they were written.
    case object([ConfigMember])

    /// The member called `key` of an object.
    public subscript(key: String) -> ConfigValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}

/// One `key: value` member of a `ConfigValue.object`.
public struct ConfigMember: Hashable, Sendable {
    /// The member's name, as written in the rule file.
    public var key: String
    /// The member's value; strings in it may hold templates.
    public var value: ConfigValue

    /// Creates the member `key: value`.
    public init(_ key: String, _ value: ConfigValue) {
        self.key = key
        self.value = value
    }
}
