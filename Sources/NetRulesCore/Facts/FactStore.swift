/// The single shared network state: every known fact, versioned.
///
/// A value type with one writer (the engine or the daemon's actor). Copies are cheap snapshots
/// (copy-on-write), so a firing can carry the facts as they were when it fired.
public struct FactStore: Hashable, Sendable {
    private var states: [FactKey: FactState] = [:]

    /// Incremented by every update that changed at least one key.
    public private(set) var version: UInt64 = 0

    /// Creates an empty store: every fact unknown.
    public init() {}

    /// The state of a fact; `.unknown` when nobody reported it.
    public subscript(key: FactKey) -> FactState {
        states[key] ?? .unknown
    }

    /// The known facts (values and absences), sorted by key.
    public var known: [(key: FactKey, state: FactState)] {
        states.sorted { $0.key < $1.key }.map { (key: $0.key, state: $0.value) }
    }

    /// The known keys.
    public var keys: Dictionary<FactKey, FactState>.Keys { states.keys }

    /// Applies a partial update and returns the keys whose state changed.
    @discardableResult
    public mutating func apply(_ update: FactUpdate) -> [FactKey] {
        applyKeepingOld(update).map(\.key)
    }

    /// Applies a partial update and returns each key whose state changed, with the state it had:
    /// what the engine reports as the update's changes, without a look-up of its own before.
    public mutating func applyKeepingOld(_ update: FactUpdate) -> [(key: FactKey, old: FactState)] {
        var changed: [(key: FactKey, old: FactState)] = []
        for (key, new) in update.changes {
            let old = states[key] ?? .unknown
            guard old != new else { continue }
            if case .unknown = new {
                states[key] = nil
            } else {
                states[key] = new
            }
            changed.append((key, old))
        }
        if !changed.isEmpty { version &+= 1 }
        return changed
    }
}
