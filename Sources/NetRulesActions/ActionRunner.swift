import NetRulesCore
import NetRulesHTTP
import NetRulesMQTT
import NetRulesSystem

/// Executes firings: per-rule order, bounded concurrency, and a durable outbox for webhooks.
///
/// `submit` queues a firing and returns at once. Firings of one rule run one at a time in the
/// order submitted; firings of different rules run concurrently, at most `concurrency` at once.
///
/// A rule has at most one queued firing per edge kind: edges that come while its firing runs (or
/// waits for a free slot) coalesce to the net transition. An edge opposite to the rule's last
/// queued one cancels it, both dropped (`enter` then `exit` while a firing runs is nothing to do;
/// `exit` then `enter` brings the rule back where the running firing leaves it); an edge like a
/// queued one replaces it (the later facts win). Every firing dropped so reports its
/// actions as skipped (`ActionResult.coalesced`), and each result of the rule's running firing
/// carries how many were dropped while it ran (`coalescedEdges`: the history's `3 edges
/// coalesced`). A firing already running is never interrupted, and a firing resumed part-way after
/// a restart is never dropped. Coalescing concerns firings only: a delivery already in the outbox
/// is delivered.
///
/// `startNoMoreFirings()` begins a shutdown that lets running firings finish: from then on no
/// firing starts, and the queued ones are let go without a result (they stay in flight in the
/// daemon's state, and the next start decides about them).
///
/// The actions of a firing run in order; a failed action skips the rest unless its
/// `continue_on_error` is set. Every action, skipped ones included, yields one `ActionResult` on
/// `results` and one line to `logger`; log lines never contain header values or bodies.
///
/// An action that reads `{{env.NAME}}` while the environment leaves NAME unset or empty fails
/// without starting (`MissingSecrets`). In every result, the values the firing's actions read
/// with `{{env.NAME}}` are masked as `<secret>` (`SecretRedaction`): in a process's output and in
/// failure messages, whatever the action printed.
///
/// Webhooks go to the outbox before their first attempt and are delivered inline (the firing waits,
/// so order holds), except that a `when: online` webhook while not online is parked and reported as
/// `queued`; it is sent when `connectivityChanged(to: "online")` arrives. `resumeOutbox()` restarts
/// deliveries a previous process left pending. Those outside a firing go one per rule at a time,
/// oldest first, so a rule's deliveries arrive in the order they were made. Webhook requests wait
/// for a slot: at most `webhookConcurrency.perHost` to one host and `.total` in all (`DeliverySlots`).
///
/// The outbox is held to `OutboxLimits`: a new delivery that would go beyond one moves the oldest
/// pending entries (the rule's own first) to `failed/`, each reported as a failed webhook result
/// (`ActionError.Code.outboxFull`) with the limit that dropped it, and `failed/` is rotated by count
/// and age after every move. What the runner keeps in memory for pending deliveries is bounded by
/// the same limits.
package actor ActionRunner {
    private struct Pending {
        var firing: Firing
        var wallTime: String
        var sequence: UInt64

        /// A firing resumed part-way after a restart has started already: never dropped.
        var isCoalescible: Bool { firing.firstAction == 0 }
    }

    /// The event loop the runner's tasks run on.
    package nonisolated let loop: ThreadExecutor
    private let environment: [String: String]
    /// `environment` as processes inherit it, prepared once rather than for each firing.
    private let baseEnvironment: FiringEnvironment.Base
    /// The facts of the last firing started, rendered: the next firing of the same store (the
    /// other rules one change fired) shares them.
    private var lastRenderedFacts: RenderedFacts?
    private let concurrency: Int
    /// How many rules' firings run at once by default: enough that one change firing a hundred
    /// rules starts their actions within tens of milliseconds (design note 0004), few enough that a
    /// thousand firings do not start a thousand processes at once.
    package static let defaultConcurrency = 32
    /// How many webhook requests may be under way at once to one host (scheme, host and port) by
    /// default: enough for a burst to one server to overlap its answers' latency, as few as a
    /// browser opens to one server, so that netrules does not flood the server a rule set posts to.
    package static let defaultWebhookConcurrency = DeliverySlots.defaultPerHost
    /// How many webhook requests may be under way at once in all: each holds a thread and a
    /// connection while it runs.
    package static let webhookConcurrencyTotal = DeliverySlots.defaultTotal
    private let logger: Logger
    let executors: Executors
    let gate = ConnectivityGate()
    private let resultsContinuation: AsyncStream<ActionResult>.Continuation

    /// One `ActionResult` per action, in the order they finish; buffers without bound until read.
    package nonisolated let results: AsyncStream<ActionResult>

    /// The sequence numbers of firings waiting to run, in order. A taken or coalesced one leaves
    /// `waiting` and `queueHead` skips it, so taking one is O(1): with 10,000 firings queued,
    /// `remove(at: 0)` moved the whole array each time.
    private var queue: [UInt64] = []
    private var queueHead = 0
    /// The firings waiting to run, by sequence number.
    private var waiting: [UInt64: Pending] = [:]
    /// Each rule's waiting firings, oldest first: at most one per edge kind, plus any resumed
    /// part-way.
    private var waitingByRule: [String: [UInt64]] = [:]
    private var queuedCount: Int { waiting.count }
    private var runningRules: Set<String> = []
    private var nextSequence: UInt64 = 0
    /// Per rule, the firings dropped by coalescing since its last firing ended: reported with the
    /// results of its next (or current) running firing.
    private var coalescedCounts: [String: Int] = [:]
    /// Whether a rule's waiting firings coalesce (`init`'s `coalescesFirings`).
    private let coalescesFirings: Bool
    /// Set by `startNoMoreFirings()`: nothing starts from then on.
    private var startsNoMore = false
    /// The rules whose firing submitted after `startNoMoreFirings()` was logged as not started.
    private var notStartedRules: Set<String> = []
    var backgroundDeliveries = 0
    /// Deliveries outside a firing (resumed, or unparked when the network came online) wait here,
    /// in order, while `maximumBackgroundDeliveries` are under way: ten thousand webhooks parked
    /// while offline must not become ten thousand transfers (and threads) at once.
    var waitingDeliveries = DeliveryQueue()
    /// How many deliveries outside a firing run at once.
    let maximumBackgroundDeliveries = 8
    /// The rules with a delivery outside a firing under way: each rule has at most one, so that
    /// its deliveries arrive in the order they were stored.
    var backgroundRules: Set<String> = []
    var deliveringKeys: Set<String> = []
    var parked: [String: OutboxEntry] = [:]
    /// QoS 1 `mqtt:` messages waiting for the broker to be connected (`brokerChanged`).
    var parkedForBroker: [String: OutboxEntry] = [:]
    /// Every pending outbox entry's rule, age and size, to hold the outbox to its limits.
    var ledger: OutboxLedger
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Every firing and background delivery in progress, so `stop()` can cancel them.
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var nextTaskID: UInt64 = 0
    var stopping = false
    /// The local zone's offset at a Unix time, for `{{time}}`.
    let utcOffset: @Sendable (Int64) -> Int64

    /// Creates a runner.
    ///
    /// - Parameters:
    ///   - loop: The event loop the runner's tasks, timers and child processes' waits run on.
    ///   - stateDirectory: Where the outbox lives (`<stateDirectory>/outbox/`); created when needed.
    ///   - httpClient: The client for webhooks; share the portal probe's.
    ///   - concurrency: How many rules' firings may run at once (at least 1); `defaultConcurrency`
    ///     unless a caller bounds it.
    ///   - environment: The daemon's environment: inherited by processes run as root (one run as
    ///     another user starts clean: `FiringEnvironment`), read by `{{env.NAME}}`.
    ///   - pluginDirectories: Searched for plugins the rule set did not resolve at load time.
    ///   - logger: The parent logger; the runner logs as `netrules.actions`: one line per action
    ///     result (`notice`, a failure as an `error`) and its output (`notice`), a webhook attempt
    ///     that will be retried (`warning`), an outbox entry that cannot be read (`error`).
    ///     An outbox entry dropped at a limit is an action result (`error`); files deleted from
    ///     `outbox/failed/` by its rotation are a `notice` saying how many and why.
    ///   - clock: Times webhook backoff; timers of `loop` unless a test gives another.
    ///   - terminationGrace: Between SIGTERM and SIGKILL when a process times out.
    ///   - outboxLimits: How much the outbox may hold, and how long `failed/` keeps what failed.
    ///   - webhookConcurrency: How many webhook requests may be under way at once, to one host
    ///     (scheme, host and port) and in all: `defaultWebhookConcurrency` and
    ///     `webhookConcurrencyTotal` unless a caller bounds them.
    ///   - utcOffset: The seconds east of UTC at a Unix time, for `{{time}}` and `NETRULES_TIME`: the
    ///     machine's zone by default; `simulate` and tests pin one.
    ///   - coalescesFirings: Whether edges of a rule coalesce while its firing runs (the daemon);
    ///     `simulate --execute` submits a whole timeline at once, whose firings are hours apart in
    ///     its virtual time, so it runs each.
    package init(
        loop: ThreadExecutor, stateDirectory: String, httpClient: HTTPClient = HTTPClient(),
        concurrency: Int = defaultConcurrency, environment: [String: String], pluginDirectories: [String] = [],
        logger: Logger = .disabled, clock: (any Clock<Duration>)? = nil,
        terminationGrace: Duration = .seconds(2), outboxLimits: OutboxLimits = .default,
        webhookConcurrency: (perHost: Int, total: Int) = (defaultWebhookConcurrency, webhookConcurrencyTotal),
        utcOffset: @escaping @Sendable (Int64) -> Int64 = { SystemTimeZone.utcOffset(atUnixTime: $0) },
        coalescesFirings: Bool = true
    ) {
        self.loop = loop
        self.environment = environment
        self.coalescesFirings = coalescesFirings
        self.utcOffset = utcOffset
        baseEnvironment = FiringEnvironment.Base(environment)
        self.concurrency = max(1, concurrency)
        let logger = logger.child("netrules.actions")
        self.logger = logger
        let gate = self.gate
        let outbox = Outbox(stateDirectory: stateDirectory)
        executors = Executors(
            run: RunExecutor(loop: loop, terminationGrace: terminationGrace),
            write: WriteExecutor(loop: loop),
            plugin: PluginExecutor(loop: loop, directories: pluginDirectories, terminationGrace: terminationGrace),
            delivery: WebhookDelivery(
                client: httpClient, outbox: outbox, clock: clock ?? QuietClock(loop: loop),
                environment: environment, isOnline: { gate.isOnline }, logger: logger, limits: outboxLimits,
                slots: DeliverySlots(perHost: webhookConcurrency.perHost, total: webhookConcurrency.total),
                removals: OutboxRemovals(outbox: outbox, loop: loop)
            )
        )
        ledger = OutboxLedger(limits: outboxLimits)
        (results, resultsContinuation) = AsyncStream.makeStream(of: ActionResult.self, bufferingPolicy: .unbounded)
    }

    /// Queues a firing and returns immediately.
    ///
    /// - Parameters:
    ///   - firing: What the engine fired.
    ///   - wallTime: The firing's wall-clock time as RFC 3339 in UTC (`{{time.utc}}`; `{{time}}` is
    ///     the same instant in local time).
    ///
    /// While a firing of the same rule runs or waits, the new one coalesces with the rule's last
    /// waiting one (see the type's comment); after `startNoMoreFirings()` it is let go, unstarted.
    package func submit(_ firing: Firing, wallTime: String) {
        guard !startsNoMore else {
            if notStartedRules.insert(firing.rule).inserted {
                logger.notice(
                    "stopping: rule '\(firing.rule)' \(firing.edge) not started (nor any later firing of the rule); "
                        + "it stays in flight for the next start")
            }
            return
        }
        nextSequence += 1
        let new = Pending(firing: firing, wallTime: wallTime, sequence: nextSequence)
        let rule = firing.rule
        let slots = coalescesFirings ? waitingByRule[rule] ?? [] : []
        if new.isCoalescible, let last = slots.last, let queued = waiting[last], queued.isCoalescible {
            if queued.firing.edge == firing.edge.opposite {
                // Net nothing: the rule is back where the firing before `queued` leaves it.
                let reason = "coalesced: '\(queued.firing.edge)' then '\(firing.edge)' while the rule was busy"
                take(last, of: rule)
                dropCoalesced(queued.firing, reason: reason, by: firing.edge)
                dropCoalesced(firing, reason: reason, by: firing.edge)
                return
            }
        }
        if new.isCoalescible,
            let same = slots.first(where: {
                waiting[$0].map { $0.isCoalescible && $0.firing.edge == firing.edge } ?? false
            }),
            let queued = waiting[same]
        {
            take(same, of: rule)
            dropCoalesced(queued.firing, reason: "coalesced into a later '\(firing.edge)' of the rule", by: firing.edge)
        }
        waiting[new.sequence] = new
        waitingByRule[rule, default: []].append(new.sequence)
        queue.append(new.sequence)
        schedule()
    }

    /// Removes a waiting firing from `waiting` and its rule's slots (`queue` skips it from then on).
    private func take(_ sequence: UInt64, of rule: String) {
        waiting[sequence] = nil
        waitingByRule[rule]?.removeAll { $0 == sequence }
        if waitingByRule[rule]?.isEmpty == true { waitingByRule[rule] = nil }
    }

    /// Reports a firing dropped by coalescing (every action skipped) and counts it for the rule.
    private func dropCoalesced(_ firing: Firing, reason: String, by edge: Edge) {
        coalescedCounts[firing.rule, default: 0] += 1
        for (index, spec) in firing.actions.enumerated() where index >= firing.firstAction {
            var skipped = ActionResult(
                rule: firing.rule, edge: firing.edge, index: index, kind: spec.kind, outcome: .skipped(reason: reason))
            skipped.firingID = firing.id
            skipped.coalesced = edge
            resultsContinuation.yield(skipped)
        }
    }

    /// Begins a shutdown that lets the running firings finish: no firing starts from now on. The
    /// waiting ones, and any submitted later, are let go without a result: the daemon keeps them in
    /// flight (`state.json`) and its next start decides whether they still apply. Logged once,
    /// with what was let go. `drain()` then returns once the running firings have ended.
    package func startNoMoreFirings() {
        guard !startsNoMore else { return }
        startsNoMore = true
        let dropped = queue[queueHead...].compactMap { waiting[$0]?.firing }
        waiting = [:]
        waitingByRule = [:]
        queue.removeAll()
        queueHead = 0
        if !dropped.isEmpty {
            let shown = dropped.prefix(5).map { "'\($0.rule)' \($0.edge)" }.joined(separator: ", ")
            let more = dropped.count > 5 ? ", +\(dropped.count - 5) more" : ""
            logger.notice(
                "stopping: \(dropped.count) queued firing\(dropped.count == 1 ? "" : "s") not started (\(shown)\(more)); "
                    + "\(dropped.count == 1 ? "it stays" : "they stay") in flight for the next start")
        }
        resumeIdleWaitersIfIdle()
    }

    /// Returns once no firing is queued or running and no delivery is in flight.
    ///
    /// Deliveries parked for `online` do not count: they may wait for hours.
    package func drain() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Stops everything now, for a shutdown that cannot wait any longer: queued firings are
    /// dropped (the daemon keeps them in flight and submits them again at the next start), running
    /// processes get SIGTERM then SIGKILL, webhook retries stop and stay in the outbox, a blocked
    /// write is abandoned. The action that was interrupted reports nothing, except a webhook (the
    /// outbox owns it), so the next start runs it again. `drain()` returns once all have ended.
    package func stop() {
        stopping = true
        startsNoMore = true
        queue.removeAll()
        queueHead = 0
        waiting = [:]
        waitingByRule = [:]
        // Still in the outbox: the next start resumes them.
        waitingDeliveries.removeAll()
        for task in tasks.values { task.cancel() }
        resumeIdleWaitersIfIdle()
    }

    /// Starts `work` as a tracked task (see `stop()`).
    func track(_ work: @escaping @Sendable () async -> Void) {
        let id = nextTaskID
        nextTaskID += 1
        tasks[id] = Task(executorPreference: loop) {
            await work()
            await self.untrack(id)
        }
    }

    private func untrack(_ id: UInt64) { tasks[id] = nil }

    /// Picks up deliveries a previous process left in the outbox: each is attempted again (or
    /// parked for `online`) with the attempts it has left and its original idempotency key.
    ///
    /// Entries beyond the outbox's limits (lowered since, or left by a version without them) are
    /// dropped first, oldest first, and `failed/` is rotated.
    package func resumeOutbox() async {
        let outbox = executors.delivery.outbox
        let (entries, problems) = await BlockingPool.shared.run { outbox.pending() }
        for problem in problems { logger.error(problem) }
        for (entry, bytes) in entries { ledger.insert(OutboxLedger.Item(entry, bytes: bytes)) }
        let drops = ledger.enforce(busy: deliveringKeys)
        _ = await perform(drops, thenStoring: nil)
        let dropped = Set(drops.map(\.item.key))
        for (entry, _) in entries where !deliveringKeys.contains(entry.idempotencyKey) {
            guard !dropped.contains(entry.idempotencyKey) else { continue }
            parked[entry.idempotencyKey] = nil
            startBackgroundDelivery(entry)
        }
        if drops.isEmpty { await executors.delivery.rotateFailed() }
    }

    /// How many deliveries the outbox holds, and their size; how many files `failed/` holds.
    package func outboxSize() async -> OutboxSize {
        let outbox = executors.delivery.outbox
        let failed = await BlockingPool.shared.run { outbox.failedCount() }
        return OutboxSize(pending: ledger.count, pendingBytes: ledger.bytes, failed: failed)
    }

    /// Tells the runner the `connectivity` fact's new value (`online`, `portal`, `offline`, or nil
    /// when unknown); on the change to `online`, parked deliveries start.
    package func connectivityChanged(to value: String?) {
        guard gate.update(value) else { return }
        let waiting = parked.values.sorted { $0.enqueuedAt < $1.enqueuedAt }
        parked = [:]
        waiting.forEach(startBackgroundDelivery)
    }

    /// Tells the runner which MQTT link `mqtt:` actions publish to (nil: none), and that its
    /// connection may have changed: once it is connected, the messages waiting for it go.
    package func brokerChanged(_ link: MQTTLink?) {
        executors.delivery.mqtt.attach(link)
        guard executors.delivery.mqtt.isConnected, !parkedForBroker.isEmpty else { return }
        let waiting = parkedForBroker.values.sorted {
            ($0.enqueuedAt, $0.idempotencyKey) < ($1.enqueuedAt, $1.idempotencyKey)
        }
        parkedForBroker = [:]
        waiting.forEach(startBackgroundDelivery)
    }

    /// The idempotency keys of deliveries parked until the network is online.
    package var parkedDeliveries: [String] { parked.keys.sorted() }

    // MARK: Scheduling

    private var isIdle: Bool { queuedCount == 0 && runningRules.isEmpty && backgroundDeliveries == 0 }

    func schedule() {
        guard !stopping, !startsNoMore else {
            resumeIdleWaitersIfIdle()
            return
        }
        var index = queueHead
        while runningRules.count < concurrency, index < queue.count {
            guard let pending = waiting[queue[index]], !runningRules.contains(pending.firing.rule) else {
                index += 1
                continue
            }
            take(pending.sequence, of: pending.firing.rule)
            runningRules.insert(pending.firing.rule)
            let context = ActionContext(
                firing: pending.firing, wallTime: pending.wallTime, environment: environment,
                baseEnvironment: baseEnvironment, renderedFacts: lastRenderedFacts, utcOffset: utcOffset)
            lastRenderedFacts = context.renderedFacts
            track { await self.perform(context) }
        }
        while queueHead < queue.count, waiting[queue[queueHead]] == nil { queueHead += 1 }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 1_024, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        resumeIdleWaitersIfIdle()
    }

    private func perform(_ context: ActionContext) async {
        let firing = context.firing
        var stopped: String?
        for (index, spec) in firing.actions.enumerated() where index >= firing.firstAction {
            var base = ActionResult(rule: firing.rule, edge: firing.edge, index: index, kind: spec.kind)
            base.firingID = firing.id
            if let stopped {
                var skipped = ActionResult(
                    rule: firing.rule, edge: firing.edge, index: index, kind: spec.kind,
                    outcome: .skipped(reason: stopped))
                skipped.firingID = firing.id
                publish(counting(skipped))
                continue
            }
            let missing = MissingSecrets.missing(spec.action.environmentNames, in: environment)
            guard missing.isEmpty else {
                var refused = base
                refused.outcome = .failed(
                    MissingSecrets.error(
                        missing, environment: environment, outcome: MissingSecrets.outcome(of: spec.action)))
                publish(counting(refused))
                if !spec.continueOnError { stopped = "action \(index) (\(spec.kind)) failed" }
                continue
            }
            let result = await execute(spec.action, in: context, result: base)
            if Task.isCancelled && !spec.action.isDeliveredThroughOutbox {
                // Shutting down: leave this action unreported so the next start runs it again.
                break
            }
            // Whatever the action printed or failed with, the secrets it read stay out of the log
            // and the history.
            publish(counting(context.secrets.redact(result)))
            if Task.isCancelled { break }
            if !result.letsFiringContinue && !spec.continueOnError {
                stopped = "action \(index) (\(spec.kind)) failed"
            }
        }
        runningRules.remove(firing.rule)
        coalescedCounts[firing.rule] = nil
        schedule()
    }

    /// A result of a running firing, with how many of its rule's firings coalescing dropped so far.
    private func counting(_ result: ActionResult) -> ActionResult {
        var result = result
        result.coalescedEdges = coalescedCounts[result.rule] ?? 0
        return result
    }

    private func execute(_ action: Action, in context: ActionContext, result: ActionResult) async -> ActionResult {
        switch action {
        case .run(let run): await executors.run.execute(run, in: context, result: result)
        case .write(let write): await executors.write.execute(write, in: context, result: result)
        case .plugin(let plugin): await executors.plugin.execute(plugin, in: context, result: result)
        case .webhook(let webhook): await deliverWebhook(webhook, in: context, result: result)
        case .mqtt(let mqtt): await publish(mqtt, in: context, result: result)
        }
    }

    func publish(_ result: ActionResult) {
        logger.log(result.isFailure ? .error : .notice, result.description)
        if let output = result.output {
            logger.notice("rule '\(result.rule)' action \(result.index) output: \(output)")
        }
        resultsContinuation.yield(result)
    }

    private func resumeIdleWaitersIfIdle() {
        guard isIdle, !idleWaiters.isEmpty else { return }
        let waiters = idleWaiters
        idleWaiters = []
        waiters.forEach { $0.resume() }
    }
}

extension ActionRunner {
    /// The executors, bundled so the runner's initialiser stays readable.
    struct Executors: Sendable {
        var run: RunExecutor
        var write: WriteExecutor
        var plugin: PluginExecutor
        var delivery: WebhookDelivery
    }
}
