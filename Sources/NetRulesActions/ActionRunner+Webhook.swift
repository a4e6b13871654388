import NetRulesCore
import NetRulesSystem

extension ActionRunner {
    /// Stores the delivery in the outbox, then delivers it inline, or parks it for `online`.
    func deliverWebhook(_ action: WebhookAction, in context: ActionContext, result: ActionResult) async -> ActionResult
    {
        var result = result
        let entry = WebhookRendering.entry(for: action, in: context, actionIndex: result.index)
        result.idempotencyKey = entry.idempotencyKey
        let outbox = executors.delivery.outbox
        if context.firing.id != nil {
            // A firing resubmitted after a crash: if its delivery reached the outbox before, the
            // outbox owns it (resumed or failed for good); enqueueing it again would send it twice.
            let key = entry.idempotencyKey
            var known = deliveringKeys.contains(key) || parked[key] != nil
            if !known { known = await DedicatedThread.run { outbox.contains(key: key) } }
            if known {
                // The outbox owns its delivery now: for the firing it is done, like a queued one.
                result.outcome = .queued
                return result
            }
        }
        let stored: Result<Void, ActionError> = await DedicatedThread.run {
            do throws(ActionError) {
                try outbox.store(entry)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = stored {
            // Without a durable record, "at least once" cannot be promised; say so instead of sending.
            result.outcome = .failed(error)
            return result
        }
        let start = ContinuousClock.now
        deliveringKeys.insert(entry.idempotencyKey)
        let (outcome, attempts) = await executors.delivery.deliver(entry)
        deliveringKeys.remove(entry.idempotencyKey)
        result.duration = ContinuousClock.now - start
        result.attempts = attempts
        apply(outcome, of: entry, to: &result)
        return result
    }

    /// Delivers a resumed or unparked entry outside any firing; reports it like an action.
    func startBackgroundDelivery(_ entry: OutboxEntry) {
        guard !deliveringKeys.contains(entry.idempotencyKey) else { return }
        if entry.waitsForOnline && !gate.isOnline {
            parked[entry.idempotencyKey] = entry
            return
        }
        guard backgroundDeliveries < maximumBackgroundDeliveries else {
            waitingDeliveries.append(entry)
            return
        }
        deliveringKeys.insert(entry.idempotencyKey)
        backgroundDeliveries += 1
        let delivery = executors.delivery
        track {
            let start = ContinuousClock.now
            let (outcome, attempts) = await delivery.deliver(entry)
            await self.finishBackgroundDelivery(
                entry, outcome: outcome, attempts: attempts, duration: ContinuousClock.now - start)
        }
    }

    /// Starts waiting deliveries while there is room (one that must wait for the network parks).
    private func startWaitingDeliveries() {
        while !stopping, backgroundDeliveries < maximumBackgroundDeliveries, waitingHead < waitingDeliveries.count {
            let entry = waitingDeliveries[waitingHead]
            waitingHead += 1
            if waitingHead == waitingDeliveries.count {
                waitingDeliveries = []
                waitingHead = 0
            }
            startBackgroundDelivery(entry)
        }
    }

    private func finishBackgroundDelivery(
        _ entry: OutboxEntry, outcome: WebhookDelivery.Outcome, attempts: Int, duration: Duration
    ) {
        deliveringKeys.remove(entry.idempotencyKey)
        backgroundDeliveries -= 1
        var result = ActionResult(
            rule: entry.rule, edge: Edge(rawValue: entry.edge) ?? .enter, index: entry.actionIndex, kind: "webhook")
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
            result.httpStatus = status
            result.outcome = .succeeded
        case .failed(let error, let status):
            result.httpStatus = status
            result.outcome = .failed(error)
        case .parked:
            if entry.waitsForOnline { parked[entry.idempotencyKey] = entry }
            result.outcome = .queued
        }
    }
}
