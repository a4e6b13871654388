import NetRulesCore
import NetRulesSystem

extension ActionRunner {
    /// Renders a webhook's request and delivers it through the outbox.
    func deliverWebhook(_ action: WebhookAction, in context: ActionContext, result: ActionResult) async -> ActionResult
    {
        let entry = WebhookRendering.entry(for: action, in: context, actionIndex: result.index)
        return await deliverThroughOutbox(entry, in: context, result: result)
    }

    /// Stores the delivery (a webhook, or a QoS 1 `mqtt:` message) in the outbox (making room
    /// within its limits, or refusing it), then delivers it inline, or parks it for `online` or
    /// for the broker.
    func deliverThroughOutbox(_ entry: OutboxEntry, in context: ActionContext, result: ActionResult) async
        -> ActionResult
    {
        var result = result
        let key = entry.idempotencyKey
        result.idempotencyKey = key
        let outbox = executors.delivery.outbox
        if context.firing.id != nil {
            // A firing resubmitted after a crash: if its delivery reached the outbox before, the
            // outbox owns it (resumed or failed for good); enqueueing it again would send it twice.
            var known = deliveringKeys.contains(key) || ledger.contains(key)
            if !known { known = await BlockingPool.shared.run { outbox.contains(key: key) } }
            if known {
                // The outbox owns its delivery now: for the firing it is done, like a queued one.
                result.outcome = .queued
                return result
            }
        }
        let bytes = Outbox.encode(entry)
        let drops: [OutboxLedger.Drop]
        switch ledger.admit(OutboxLedger.Item(entry, bytes: bytes.count), busy: deliveringKeys) {
        case .refused(let reason):
            result.outcome = .failed(ActionError(.outboxFull, "\(entry.deliveryName): \(reason)"))
            return result
        case .admitted(let dropping):
            drops = dropping
        }
        // Busy from now on, so that no other delivery's admission drops it before it is stored.
        deliveringKeys.insert(key)
        if let error = await perform(drops, thenStoring: (entry, bytes)) {
            // Without a durable record, "at least once" cannot be promised; say so instead of sending.
            deliveringKeys.remove(key)
            ledger.remove(key: key)
            result.outcome = .failed(error)
            return result
        }
        let start = ContinuousClock.now
        let (outcome, attempts, last) = await executors.delivery.deliver(entry)
        deliveringKeys.remove(key)
        result.duration = ContinuousClock.now - start
        result.attempts = attempts
        apply(outcome, of: last, to: &result)
        return result
    }

    /// Moves `drops` to `failed/` and stores `new`, in one job on a dedicated thread, then reports
    /// each drop as a failed webhook result and rotates `failed/`. The dropped entries leave memory
    /// first, so nothing starts them meanwhile.
    /// - Returns: why `new` could not be stored, or nil.
    func perform(_ drops: [OutboxLedger.Drop], thenStoring new: (entry: OutboxEntry, bytes: [UInt8])?) async
        -> ActionError?
    {
        guard !drops.isEmpty || new != nil else { return nil }
        for drop in drops {
            parked[drop.item.key] = nil
            parkedForBroker[drop.item.key] = nil
            waitingDeliveries.remove(key: drop.item.key)
        }
        let outbox = executors.delivery.outbox
        let limits = executors.delivery.limits
        let (dropErrors, storeError, rotation) = await BlockingPool.shared.run {
            var dropErrors: [String: ActionError] = [:]
            for drop in drops {
                do throws(ActionError) {
                    try outbox.drop(key: drop.item.key, reason: drop.reason)
                } catch {
                    dropErrors[drop.item.key] = error
                }
            }
            var storeError: ActionError?
            if let new {
                do throws(ActionError) {
                    try outbox.store(new.entry, bytes: new.bytes)
                } catch {
                    storeError = error
                }
            }
            // A drop is no promise to keep: the new entry's store fsyncs the outbox's directory, and
            // the drops' unlinks with it; failed/ is synced only for drops made alone (at start).
            // As the comment above says, a drop is no promise to keep; a failed sync only means a
            // crash could bring a dropped entry back as pending, to be dropped again.
            if !drops.isEmpty, new == nil || storeError != nil { try? outbox.syncDirectories() }
            let rotation =
                drops.isEmpty
                ? Outbox.Rotation() : outbox.rotateFailed(keeping: limits.failed, maximumAge: limits.failedAge)
            return (dropErrors, storeError, rotation)
        }
        for drop in drops {
            var result = ActionResult(
                rule: drop.item.rule, edge: Edge(rawValue: drop.item.edge) ?? .enter, index: drop.item.actionIndex,
                kind: drop.item.kind)
            result.idempotencyKey = drop.item.key
            var error = ActionError(.outboxFull, "\(drop.item.deliveryName): \(drop.reason)")
            if let moveError = dropErrors[drop.item.key] {
                error.message += " (and it could not be moved to outbox/failed: \(moveError))"
            }
            result.outcome = .failed(error)
            publish(result)
        }
        executors.delivery.report(rotation)
        return storeError
    }

    /// Delivers a resumed or unparked entry outside any firing; reports it like an action.
    func startBackgroundDelivery(_ entry: OutboxEntry) {
        guard !deliveringKeys.contains(entry.idempotencyKey) else { return }
        if entry.waitsForOnline && !gate.isOnline {
            parked[entry.idempotencyKey] = entry
            return
        }
        if entry.mqtt != nil && !executors.delivery.mqtt.isConnected {
            parkedForBroker[entry.idempotencyKey] = entry
            return
        }
        // One of the rule's at a time, so that its deliveries arrive in the order they were made.
        guard backgroundDeliveries < maximumBackgroundDeliveries, !backgroundRules.contains(entry.rule) else {
            waitingDeliveries.append(entry)
            return
        }
        deliveringKeys.insert(entry.idempotencyKey)
        backgroundRules.insert(entry.rule)
        backgroundDeliveries += 1
        let delivery = executors.delivery
        track {
            let start = ContinuousClock.now
            let (outcome, attempts, last) = await delivery.deliver(entry)
            await self.finishBackgroundDelivery(
                last, outcome: outcome, attempts: attempts, duration: ContinuousClock.now - start)
        }
    }

    /// Starts waiting deliveries while there is room (one that must wait for the network parks).
    func startWaitingDeliveries() {
        while !stopping, backgroundDeliveries < maximumBackgroundDeliveries,
            let entry = waitingDeliveries.popFirst(where: { !backgroundRules.contains($0.rule) })
        {
            startBackgroundDelivery(entry)
        }
    }

    private func finishBackgroundDelivery(
        _ entry: OutboxEntry, outcome: WebhookDelivery.Outcome, attempts: Int, duration: Duration
    ) {
        deliveringKeys.remove(entry.idempotencyKey)
        backgroundRules.remove(entry.rule)
        backgroundDeliveries -= 1
        var result = ActionResult(
            rule: entry.rule, edge: Edge(rawValue: entry.edge) ?? .enter, index: entry.actionIndex, kind: entry.kind)
        result.idempotencyKey = entry.idempotencyKey
        result.attempts = attempts
        result.duration = duration
        apply(outcome, of: entry, to: &result)
        publish(
            SecretRedaction(names: entry.environmentNames, environment: executors.delivery.environment).redact(result))
        // Connectivity may have dropped between the check and the attempt; park it again.
        if case .parked = outcome, entry.waitsForOnline, !gate.isOnline { parked[entry.idempotencyKey] = entry }
        startWaitingDeliveries()
        schedule()
    }

    private func apply(_ outcome: WebhookDelivery.Outcome, of entry: OutboxEntry, to result: inout ActionResult) {
        switch outcome {
        case .delivered(let status):
            ledger.remove(key: entry.idempotencyKey)
            result.httpStatus = status
            result.outcome = .succeeded
        case .failed(let error, let status):
            ledger.remove(key: entry.idempotencyKey)
            result.httpStatus = status
            result.outcome = .failed(error)
        case .published:
            ledger.remove(key: entry.idempotencyKey)
            result.outcome = .succeeded
        case .parked:
            if entry.waitsForOnline { parked[entry.idempotencyKey] = entry }
            if entry.mqtt != nil, !stopping {
                // Connected again meanwhile (brokerChanged already ran): go on at once, else wait.
                if executors.delivery.mqtt.isConnected {
                    waitingDeliveries.append(entry)
                    startWaitingDeliveries()
                } else {
                    parkedForBroker[entry.idempotencyKey] = entry
                }
            }
            result.outcome = .queued
        }
    }
}
