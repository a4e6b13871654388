/// An external observer plugin named under the top-level `observers:` key.
public struct ObserverDefinition: Hashable, Sendable {
    /// The name facts and logs use.
    public var name: String
    /// The program and its arguments (no shell).
    public var command: [String]

    /// Creates the observer plugin `name`, started as `command` (a program and its arguments, no shell).
    public init(name: String, command: [String]) {
        self.name = name
        self.command = command
    }
}
