import NetRulesCore

extension HistoryEntry {
    /// The longest rendered action, output excerpt, error or fact value kept, in UTF-8 bytes.
    package static let textLimit = 1024

    /// The entry of an edge the engine dropped (`cooldown`, `once_per`): no action ran.
    package static func dropped(
        _ event: TraceEvent, reason: String, id: String, time: String, until: String?, facts store: FactStore,
        readKeys: [FactKey]
    ) -> HistoryEntry {
        HistoryEntry(
            id: id, time: time, rule: event.rule, edge: event.edge, facts: facts(readKeys, in: store), actions: [],
            dropped: Drop(reason: reason, until: until))
    }

    /// The entry of a firing not run because its rule is paused (`RulePause`): no action ran.
    package static func paused(_ firing: Firing, id: String, time: String, readKeys: [FactKey]) -> HistoryEntry {
        HistoryEntry(
            id: id, time: time, rule: firing.rule, edge: firing.edge, facts: facts(readKeys, in: firing.facts),
            actions: [], dropped: Drop(reason: "paused"))
    }

    /// The facts a rule reads, each once, in the rule's order, the engine's own clock left out.
    package static func facts(_ keys: [FactKey], in store: FactStore) -> [Fact] {
        var seen: Set<FactKey> = []
        return keys.filter { !$0.isEngineInternal && seen.insert($0).inserted }.map { key in
            switch store[key] {
            case .unknown: return Fact(key: key.rawValue, value: nil)
            case .absent: return Fact(key: key.rawValue, value: .null)
            case .value(let value):
                let json = JSONValue(value)
                // Built-in facts are small; a plugin's value may not be: keep its start, as text.
                let fits = json.compact.utf8.count <= textLimit
                return Fact(key: key.rawValue, value: fits ? json : .string(bounded(value.plainText)))
            }
        }
    }

    /// The entry of a webhook delivery the outbox dropped at one of its limits, for when the history
    /// no longer holds its firing; nil for any other result.
    ///
    /// Its id is `outbox-` and the delivery's idempotency key; it has no facts (they were those of a
    /// firing long gone) and one action, the webhook, failed with the reason it was dropped.
    package static func outboxDrop(_ result: ActionResult, time: String) -> HistoryEntry? {
        guard result.firingID == nil, let key = result.idempotencyKey, case .failed(let error) = result.outcome,
            error.code == .outboxFull
        else { return nil }
        let action = Action(
            type: result.kind, rendered: "delivery \(key) (its firing is no longer in the history)",
            outcome: Outcome(result), idempotencyKey: key)
        return HistoryEntry(
            id: "outbox-" + key, time: time, rule: result.rule, edge: result.edge, facts: [], actions: [action])
    }

    /// Records what became of one of its actions; a firing coalescing dropped is marked dropped as
    /// `coalesced`, and a running one notes how many edges coalesced while it ran.
    package mutating func apply(_ result: ActionResult) {
        if result.coalesced != nil { dropped = Drop(reason: "coalesced") }
        if result.coalescedEdges > (coalesced ?? 0) { coalesced = result.coalescedEdges }
        guard actions.indices.contains(result.index) else { return }
        actions[result.index].outcome = Outcome(result)
        if let key = result.idempotencyKey { actions[result.index].idempotencyKey = key }
    }

    /// `text` cut to at most `limit` UTF-8 bytes at a character boundary, `…` marking a cut.
    package static func bounded(_ text: String, limit: Int = textLimit) -> String {
        guard text.utf8.count > limit else { return text }
        var kept = ""
        var count = 0
        for character in text {
            let size = character.utf8.count
            guard count + size <= limit - 3 else { break }
            kept.append(character)
            count += size
        }
        return kept + "…"
    }
}

extension HistoryEntry.Outcome {
    /// The outcome an action result reports, its strings bounded.
    package init(_ result: ActionResult) {
        switch result.outcome {
        case .succeeded: self.init(status: "ok")
        case .queued: self.init(status: "queued")
        case .failed(let error):
            self.init(status: "failed")
            self.error = HistoryEntry.bounded(error.description)
        case .skipped(let reason):
            self.init(status: "skipped")
            self.error = HistoryEntry.bounded(reason)
        }
        exitStatus = result.exitStatus.map(Int.init)
        signal = result.signal.map(Int.init)
        httpStatus = result.httpStatus
        if result.duration > .zero {
            durationMilliseconds = (DurationSyntax.seconds(result.duration) * 10_000).rounded() / 10
        }
        if result.kind == "webhook", result.attempts > 0 { retries = result.attempts - 1 }
        output = result.output.map { HistoryEntry.bounded($0) }
        account = result.account.map { HistoryEntry.bounded($0) }
        group = result.group.map { HistoryEntry.bounded($0) }
    }
}
