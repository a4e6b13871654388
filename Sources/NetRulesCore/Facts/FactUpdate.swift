/// A partial change to the network state, reported by one observer.
///
/// Keys not named keep their state. Setting a key to `.unknown` forgets it (an observer that
/// stopped makes its facts unknown again).
public struct FactUpdate: Hashable, Sendable {
    /// The new state of each named key.
    public var changes: [FactKey: FactState]

    /// Creates an update from new states.
    public init(_ changes: [FactKey: FactState] = [:]) {
        self.changes = changes
    }

    /// Creates an update setting values (nil means known absent).
    public init(values: [FactKey: FactValue?]) {
        var changes: [FactKey: FactState] = [:]
        for (key, value) in values {
            changes[key] = value.map(FactState.value) ?? .absent
        }
        self.changes = changes
    }

    /// Whether the update names no key.
    public var isEmpty: Bool { changes.isEmpty }

    /// Sets one key.
    public subscript(key: FactKey) -> FactState? {
        get { changes[key] }
        set { changes[key] = newValue }
    }
}
