import NetRulesCore

/// What the runner knows of the pending outbox entries to hold them to `OutboxLimits`: each entry's
/// rule, age and size, never its request.
///
/// When a new delivery would go beyond a limit, the oldest pending entries make room: first the
/// rule's own (`pendingPerRule`), then anyone's (`pending`, `pendingBytes`). An entry being
/// attempted right now is never chosen (its transfer is under way; it ends on its own); when only
/// such entries are left, or the new entry alone is larger than `pendingBytes`, the new delivery is
/// refused instead. Nothing leaves without a reason: the caller moves each dropped entry to
/// `failed/` and reports it.
///
/// Not thread-safe: the runner actor owns it.
struct OutboxLedger {
    /// One pending entry, as much as a drop needs to be reported.
    struct Item: Sendable, Hashable {
        var key: String
        var rule: String
        var edge: String
        var actionIndex: Int
        var method: String
        /// `webhook` or `mqtt`.
        var kind: String
        /// Nanoseconds since the epoch (`OutboxEntry.enqueuedAt`): the order entries are dropped in.
        var enqueuedAt: Int64
        /// The entry's size as first written.
        var bytes: Int

        init(_ entry: OutboxEntry, bytes: Int) {
            key = entry.idempotencyKey
            rule = entry.rule
            edge = entry.edge
            actionIndex = entry.actionIndex
            method = entry.method
            kind = entry.kind
            enqueuedAt = entry.enqueuedAt
            self.bytes = bytes
        }

        /// `webhook POST delivery KEY` or `mqtt message KEY`, for messages.
        var deliveryName: String { kind == "mqtt" ? "mqtt message \(key)" : "webhook \(method) delivery \(key)" }

        fileprivate func isOlder(than other: Item) -> Bool {
            (enqueuedAt, key) < (other.enqueuedAt, other.key)
        }
    }

    /// An entry to move to `failed/`, and why (the text a person reads in the log and the history).
    struct Drop: Sendable, Hashable {
        var item: Item
        var reason: String
    }

    /// What becomes of a new delivery.
    enum Admission: Sendable, Hashable {
        /// It is pending now; the entries to drop first (possibly none), oldest first.
        case admitted(dropping: [Drop])
        /// It cannot be kept; nothing was dropped.
        case refused(reason: String)
    }

    let limits: OutboxLimits
    /// Each rule's pending entries, oldest first.
    private var byRule: [String: [Item]] = [:]
    private var ruleOfKey: [String: String] = [:]
    /// How many entries are pending.
    private(set) var count = 0
    /// Their total size.
    private(set) var bytes = 0

    init(limits: OutboxLimits) { self.limits = limits }

    func contains(_ key: String) -> Bool { ruleOfKey[key] != nil }

    /// How many entries of `rule` are pending.
    func count(of rule: String) -> Int { byRule[rule]?.count ?? 0 }

    /// Adds a pending entry without looking at the limits (see `admit` and `enforce`).
    mutating func insert(_ item: Item) {
        guard ruleOfKey[item.key] == nil else { return }
        var items = byRule[item.rule, default: []]
        // New entries are nearly always the newest: search from the end.
        var index = items.endIndex
        while index > items.startIndex, item.isOlder(than: items[index - 1]) { index -= 1 }
        items.insert(item, at: index)
        byRule[item.rule] = items
        ruleOfKey[item.key] = item.rule
        count += 1
        bytes += item.bytes
    }

    /// Forgets an entry that was delivered, failed for good or dropped.
    @discardableResult
    mutating func remove(key: String) -> Item? {
        guard let rule = ruleOfKey.removeValue(forKey: key), var items = byRule[rule],
            let index = items.firstIndex(where: { $0.key == key })
        else { return nil }
        let item = items.remove(at: index)
        byRule[rule] = items.isEmpty ? nil : items
        count -= 1
        bytes -= item.bytes
        return item
    }

    /// Makes room for `item` and adds it, or refuses it.
    /// - Parameters:
    ///   - item: the new delivery.
    ///   - busy: the keys of entries being attempted now (which are not dropped).
    mutating func admit(_ item: Item, busy: Set<String>) -> Admission {
        guard item.bytes <= limits.pendingBytes else {
            return .refused(
                reason: "not queued: the delivery's \(ByteCountSyntax.format(item.bytes)) are more than the outbox "
                    + "keeps in all (--outbox-bytes \(ByteCountSyntax.format(limits.pendingBytes)))")
        }
        var plan = Plan(busy: busy)
        while count(of: item.rule) - plan.dropped(of: item.rule) >= limits.pendingPerRule {
            guard plan.dropOldest(in: byRule, of: item.rule, reason: ruleReason(item.rule)) else {
                return .refused(reason: busyReason(ruleReason(item.rule)))
            }
        }
        while count - plan.drops.count >= limits.pending {
            guard plan.dropOldest(in: byRule, of: nil, reason: overallReason) else {
                return .refused(reason: busyReason(overallReason))
            }
        }
        while bytes - plan.droppedBytes + item.bytes > limits.pendingBytes {
            guard plan.dropOldest(in: byRule, of: nil, reason: bytesReason) else {
                return .refused(reason: busyReason(bytesReason))
            }
        }
        for drop in plan.drops { remove(key: drop.item.key) }
        insert(item)
        return .admitted(dropping: plan.drops)
    }

    /// The drops that bring entries read back at start within the limits (which may have been
    /// lowered since they were written), oldest first; they are removed from the ledger.
    mutating func enforce(busy: Set<String>) -> [Drop] {
        var plan = Plan(busy: busy)
        for rule in byRule.keys.sorted() {
            while count(of: rule) - plan.dropped(of: rule) > limits.pendingPerRule {
                guard plan.dropOldest(in: byRule, of: rule, reason: ruleReason(rule)) else { break }
            }
        }
        while count - plan.drops.count > limits.pending, plan.dropOldest(in: byRule, of: nil, reason: overallReason) {}
        while bytes - plan.droppedBytes > limits.pendingBytes, plan.dropOldest(in: byRule, of: nil, reason: bytesReason)
        {}
        for drop in plan.drops { remove(key: drop.item.key) }
        return plan.drops.sorted { $0.item.isOlder(than: $1.item) }
    }

    // MARK: - Reasons

    private func ruleReason(_ rule: String) -> String {
        "rule '\(rule)' has \(limits.pendingPerRule) deliveries pending, the most the outbox keeps per rule "
            + "(--outbox-rule-limit)"
    }

    private var overallReason: String {
        "\(limits.pending) deliveries are pending, the most the outbox keeps (--outbox-limit)"
    }

    private var bytesReason: String {
        "the pending deliveries reached \(ByteCountSyntax.format(limits.pendingBytes)), the most the outbox keeps "
            + "(--outbox-bytes)"
    }

    private func busyReason(_ limit: String) -> String {
        "not queued: " + limit + "; none can make room, all are being attempted"
    }

    // MARK: - Choosing

    /// The entries chosen to make room so far, before any is removed.
    private struct Plan {
        let busy: Set<String>
        private(set) var drops: [Drop] = []
        private var chosen: Set<String> = []
        private var droppedPerRule: [String: Int] = [:]
        private(set) var droppedBytes = 0

        init(busy: Set<String>) { self.busy = busy }

        func dropped(of rule: String) -> Int { droppedPerRule[rule] ?? 0 }

        /// Chooses the oldest entry of `rule` (of any rule when nil) that is neither busy nor chosen;
        /// false when there is none.
        mutating func dropOldest(in byRule: [String: [Item]], of rule: String?, reason: String) -> Bool {
            var oldest: Item?
            let candidates = rule.map { [byRule[$0] ?? []] } ?? Array(byRule.values)
            for items in candidates {
                guard let first = items.first(where: { !chosen.contains($0.key) && !busy.contains($0.key) }) else {
                    continue
                }
                if oldest.map({ first.isOlder(than: $0) }) ?? true { oldest = first }
            }
            guard let oldest else { return false }
            chosen.insert(oldest.key)
            drops.append(Drop(item: oldest, reason: "dropped: " + reason))
            droppedPerRule[oldest.rule, default: 0] += 1
            droppedBytes += oldest.bytes
            return true
        }
    }
}
