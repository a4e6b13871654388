/// A partial change to the network state, reported by one observer.
///
/// Keys not named keep their state. Setting a key to `.unknown` forgets it (an observer that
/// stopped makes its facts unknown again).
public struct FactUpdate: Hashable, Sendable {
    /// The new state of each named key.
    public var changes: [FactKey: FactState]
    /// Namespaces (`interfaces`) this update describes completely: a key of theirs that no
    /// observer has reported and this update does not name is known absent.
    public var completeNamespaces: Set<String>

    /// Creates an update from new states.
    public init(_ changes: [FactKey: FactState] = [:], completeNamespaces: Set<String> = []) {
        self.changes = changes
        self.completeNamespaces = completeNamespaces
    }

    /// Creates an update setting values (nil means known absent).
    public init(values: [FactKey: FactValue?]) {
        var changes: [FactKey: FactState] = [:]
        for (key, value) in values {
            changes[key] = value.map(FactState.value) ?? .absent
        }
        self.changes = changes
        self.completeNamespaces = []
    }

    /// Whether the update names no key.
    public var isEmpty: Bool { changes.isEmpty }

    /// Sets one key.
    public subscript(key: FactKey) -> FactState? {
        get { changes[key] }
        set { changes[key] = newValue }
    }
}
