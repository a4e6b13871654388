/// Outbox entries waiting for a delivery slot: first in, first out, and removable by key (the
/// outbox drops the oldest pending entries when it is full, waiting ones included).
///
/// A taken or removed entry leaves a hole, so either is O(1); once holes are more than half of the
/// storage the queue is rebuilt without them, so what it holds in memory stays proportional to
/// what waits in it, however long it is never empty.
struct DeliveryQueue {
    private var slots: [OutboxEntry?] = []
    /// The first slot that may hold an entry.
    private var head = 0
    /// Each waiting entry's index in `slots`.
    private var positions: [String: Int] = [:]

    /// How many entries wait.
    var count: Int { positions.count }

    var isEmpty: Bool { positions.isEmpty }

    /// How many slots the storage holds, waiting entries and holes: what the queue costs in memory.
    var storageCount: Int { slots.count }

    func contains(_ key: String) -> Bool { positions[key] != nil }

    /// Adds `entry` at the end; an entry already waiting keeps its place and takes the new state.
    mutating func append(_ entry: OutboxEntry) {
        if let position = positions[entry.idempotencyKey] {
            slots[position] = entry
            return
        }
        positions[entry.idempotencyKey] = slots.count
        slots.append(entry)
    }

    /// Takes the entry that has waited longest.
    mutating func popFirst() -> OutboxEntry? {
        while head < slots.count {
            let slot = slots[head]
            slots[head] = nil
            head += 1
            guard let entry = slot else { continue }
            positions[entry.idempotencyKey] = nil
            compact()
            return entry
        }
        compact()
        return nil
    }

    /// Takes the entry that has waited longest of those `isReady` accepts: O(n) in the worst case,
    /// when the ones ahead of it are not ready.
    mutating func popFirst(where isReady: (OutboxEntry) -> Bool) -> OutboxEntry? {
        var index = head
        while index < slots.count {
            if let entry = slots[index], isReady(entry) { return remove(key: entry.idempotencyKey) }
            index += 1
        }
        return nil
    }

    /// Takes the entry with `key` out of the queue, wherever it is.
    @discardableResult
    mutating func remove(key: String) -> OutboxEntry? {
        guard let position = positions.removeValue(forKey: key) else { return nil }
        let entry = slots[position]
        slots[position] = nil
        compact()
        return entry
    }

    mutating func removeAll() {
        slots = []
        positions = [:]
        head = 0
    }

    private mutating func compact() {
        if positions.isEmpty {
            slots.removeAll(keepingCapacity: slots.count <= 1_024)
            head = 0
        } else if slots.count > 64, slots.count > 2 * positions.count {
            let waiting = slots[head...].compactMap { $0 }
            for (index, entry) in waiting.enumerated() { positions[entry.idempotencyKey] = index }
            slots = waiting.map(Optional.some)
            head = 0
        }
    }
}
