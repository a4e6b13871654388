/// The firings whose actions have not all reported, in the order they fired, with what changed
/// since the state was last recorded.
///
/// Every operation an event needs is O(1) (by id), and `takeChanges()` costs what changed: with
/// ten thousand webhooks in flight, recording one action's result must not walk all of them
/// (it did, twice per event, and queueing 10,000 webhooks took 146 s).
package struct InflightFirings {
    private var byID: [String: PersistedState.SavedFiring] = [:]
    /// Ids in firing order; may still hold retired ids, skipped and compacted away lazily.
    private var order: [String] = []
    /// Each id's rank in firing order, to put a few changed firings in order without a walk.
    private var rank: [String: UInt64] = [:]
    private var nextRank: UInt64 = 0
    private var changed: Set<String> = []
    private var retired: Set<String> = []
    /// Bumped on every change, so "did anything change?" costs nothing.
    package private(set) var version: UInt64 = 0

    package init(_ firings: [PersistedState.SavedFiring] = []) {
        for firing in firings { append(firing) }
        changed = []
        version = 0
    }

    package var count: Int { byID.count }
    package var isEmpty: Bool { byID.isEmpty }

    /// Every firing in flight, in firing order (O(n): for snapshots and restarts, not events).
    package var all: [PersistedState.SavedFiring] { order.compactMap { byID[$0] } }

    package subscript(id: String) -> PersistedState.SavedFiring? { byID[id] }

    package mutating func append(_ firing: PersistedState.SavedFiring) {
        if byID.updateValue(firing, forKey: firing.id) == nil {
            order.append(firing.id)
            rank[firing.id] = nextRank
            nextRank += 1
        }
        changed.insert(firing.id)
        retired.remove(firing.id)
        version &+= 1
    }

    /// Actions before `next` have reported.
    package mutating func advance(_ id: String, to next: Int) {
        guard var firing = byID[id], next > firing.nextAction else { return }
        firing.nextAction = next
        byID[id] = firing
        changed.insert(id)
        version &+= 1
    }

    /// The firing's last action reported.
    package mutating func retire(_ id: String) {
        guard byID.removeValue(forKey: id) != nil else { return }
        rank[id] = nil
        retired.insert(id)
        changed.remove(id)
        version &+= 1
        if order.count > 2 * byID.count + 64 { order = order.filter { byID[$0] != nil } }
    }

    /// The firings added or advanced and the ids retired since the last call.
    package mutating func takeChanges() -> (changed: [PersistedState.SavedFiring], retired: [String]) {
        defer {
            changed = []
            retired = []
        }
        let ids = changed.sorted { (rank[$0] ?? 0) < (rank[$1] ?? 0) }
        return (ids.compactMap { byID[$0] }, retired.sorted())
    }

    /// Forgets what changed: the state was just written whole.
    package mutating func markRecorded() {
        changed = []
        retired = []
    }
}
