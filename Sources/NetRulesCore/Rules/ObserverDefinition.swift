/// An external observer plugin named under the top-level `observers:` key.
public struct ObserverDefinition: Hashable, Sendable {
    /// The name facts and logs use.
    public var name: String
    /// The program and its arguments (no shell).
    public var command: [String]
    /// The facts it declares it reports (`provides:`): the built-in facts among them are the only
    /// built-in facts taken from it (checked and normalised like a timeline's), and `facts` and
    /// `doctor` name it as their source.
    public var provides: [FactKey]

    /// Creates the observer plugin `name`, started as `command` (a program and its arguments, no
    /// shell), that declares it reports `provides`.
    public init(name: String, command: [String], provides: [FactKey] = []) {
        self.name = name
        self.command = command
        self.provides = provides
    }
}
