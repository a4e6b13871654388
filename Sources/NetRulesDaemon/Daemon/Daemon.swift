import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemonCore
import NetRulesLinux
import NetRulesProbes
import NetRulesSystem
import Synchronization

/// The long-running service: observers → `DaemonCore` (the fact store and engine) → action runner.
///
/// The decisions are `DaemonCore`'s, a value that takes events and returns effects; this actor is
/// the one that performs them. Everything that happens reaches it as a `DaemonEvent` on one
/// stream, handled in order: fact updates, deadlines, reloads, action results, shutdown. It hands
/// each to the core with the time it happened and performs the effects in order: submitting firings,
/// appending journal lines, starting and stopping observers, arming the deadline, telling
/// watchers and subscribers which facts changed. Time is the daemon's `ContinuousClock` since it
/// started; persisted deadlines are wall-clock, mapped back on restart.
///
/// Start order is runner → core → observers; shutdown runs in reverse: observers stop, the
/// runner finishes running actions within `shutdownGrace` (their results still recorded), the
/// state is persisted.
package actor Daemon: DaemonQueries {
    let options: DaemonOptions
    let logger: Logger
    let clock = ContinuousClock()
    let startInstant: ContinuousClock.Instant
    let startWall: WallTime
    /// Everything the daemon's task handles, in order: fact updates, ticks, reloads, results. Any
    /// thread adds one (`events.yield`); the daemon's task takes them from `eventStream`.
    let events: AsyncStream<DaemonEvent>.Continuation
    let eventStream: AsyncStream<DaemonEvent>
    /// How many shutdowns `shutdown()` was asked for: the daemon's task takes one before the next
    /// event it handles, ahead of the events queued before it, so a backlog (a plugin flooding
    /// facts on a loaded machine) never holds up SIGTERM; the `.shutdown` event that follows in
    /// the stream is then skipped.
    private let shutdownsAsked = Atomic(0)
    /// Whether this kernel has nl80211, asked on the blocking pool each time the rules are read
    /// (a genetlink round trip that polls: never on the loop) and read by `ObserverPlan` and
    /// `factSources()`.
    let kernelHasNL80211 = Atomic(false)
    var core: DaemonCore
    /// Where firings go: the action runner (`DaemonServices.actions` in tests).
    let runner: any ActionSink
    /// `state.json` and the journal (`DaemonServices.stateStore` in tests).
    let store: any StateStore
    /// The running observers by identity, with when each started.
    var observers: [String: (task: Task<Void, Never>, started: ContinuousClock.Instant)] = [:]
    /// The observers the rules run, by identity (running or waiting to start again).
    var observerEntries: [String: ObserverPlan.Entry] = [:]
    /// Runs the proofs of `places:`; nil when no place has one.
    var prober: PlaceProber?
    /// What `prober` was made for (names and fingerprints), so a reload keeps an unchanged one.
    var proberIdentity = ""
    /// `DaemonServices.attached`, running, in start order; nil until they start.
    var attached: [Task<Void, Never>]?
    /// Who hears of fact changes by key, beside the `watch` clients: the webhook online gate and
    /// the portal probe.
    var subscriptions = FactSubscriptions()
    /// How often the Wi-Fi observer samples `signal`, from the rules and the `watch` clients.
    let signalSampling = SignalSampling()
    var timer: Task<Void, Never>?
    var watchers: [Int: AsyncStream<FactChange>.Continuation] = [:]
    var nextWatcher = 0
    /// Recent firings and dropped edges for `netrules history`; nil with `historyLimit` 0.
    var history: FiringHistory?
    /// The control clients waiting for a reload's outcome, by ticket (`DaemonEvent.reloadRequested`).
    var reloadReplies: [ReloadTicket: CheckedContinuation<ReloadOutcome, Never>] = [:]
    var nextReloadTicket: ReloadTicket = 1
    /// MQTT hook (issue 25): who hears of firings and rule sets (`fleetNotices()`, Daemon+Fleet.swift).
    var fleetListeners: [Int: AsyncStream<FleetNotice>.Continuation] = [:]
    var fleetStatus: (@Sendable () -> FleetService.Status?)?

    package init(options: DaemonOptions) {
        self.options = options
        self.logger = options.logger
        (eventStream, events) = Self.makeEventStream()
        startInstant = clock.now
        let startWall = WallClock.now()
        self.startWall = startWall
        store =
            options.services.stateStore?(options)
            ?? StateFiles(
                directory: options.paths.stateDirectory, logger: options.logger,
                startTime: Int(startWall.secondsSince1970))
        core = DaemonCore(
            processToken: String(UInt32.random(in: .min ... .max), radix: 16), logger: options.logger,
            recordsHistory: options.historyLimit > 0, shutdownGrace: options.shutdownGrace)
        if let actions = options.services.actions {
            runner = actions(options)
        } else {
            runner = ActionRunner(
                loop: options.loop, stateDirectory: options.paths.stateDirectory, concurrency: options.concurrency,
                environment: options.environment, logger: options.logger,
                outboxLimits: options.outboxLimits,
                webhookConcurrency: (options.webhookConcurrency, ActionRunner.webhookConcurrencyTotal))
        }
    }

    /// The daemon's event stream: unbounded (an event is never dropped while the daemon runs), in
    /// arrival order from any thread; finished by `finish()` or by cancelling its consumer.
    static func makeEventStream() -> (
        stream: AsyncStream<DaemonEvent>, continuation: AsyncStream<DaemonEvent>.Continuation
    ) {
        AsyncStream.makeStream(of: DaemonEvent.self, bufferingPolicy: .unbounded)
    }

    /// Asks for a reload (SIGHUP, a rule file changed). Safe from any thread.
    package nonisolated func reload() { events.yield(.reloadRequested(nil)) }

    /// Asks for a graceful shutdown (SIGTERM, SIGINT); asked again, the core stops running
    /// actions at once (the state is still saved). Safe from any thread.
    package nonisolated func shutdown() {
        shutdownsAsked.add(1, ordering: .sequentiallyConsistent)
        events.yield(.shutdown)
    }

    /// Runs until `shutdown()`; returns the exit code: 0 after a clean shutdown, 65 when the rules
    /// are invalid at start, 66 (EX_NOINPUT) when they cannot be read.
    package func run() async -> Int32 {
        do {
            // Blocking work never runs on the loop: the pool needs a thread before anything queues.
            try BlockingPool.shared.prepare()
        } catch {
            logger.critical("cannot start the daemon's worker thread: \(error)")
            return 1
        }
        let options = self.options
        let (result, unreadable, _) = await BlockingPool.shared.run {
            self.kernelHasNL80211.store(WiFiSource.kernelHasNL80211, ordering: .relaxed)
            return Self.load(options)
        }
        guard let loaded = result else { return unreadable ? 66 : 65 }
        // mkdir -p with fsyncs: on the pool, never the loop (`LoopGuard`).
        let directory = options.paths.stateDirectory
        let created = await BlockingPool.shared.run { Result { try Self.createStateDirectory(directory) } }
        do {
            try created.get()
        } catch {
            // The errno alone does not tell a person what to do; this says what and how to fix it.
            logger.critical(
                "cannot create the state directory '\(options.paths.stateDirectory)'; make its parent writable "
                    + "by this user, or choose another with --state-dir")
            return 1
        }
        // Before any plugin starts: what a daemon that died left running is stopped (docs/plugins.md).
        let log = logger
        await BlockingPool.shared.run { PluginGroups.shared.adopt(directory: directory, logger: log) }
        if options.historyLimit > 0 {
            // Read on the pool: the file may hold up to 32 MiB. Its failures to write are the state
            // files': a full disk is one streak in the log.
            let (logger, failures) = (self.logger, (store as? StateFiles)?.failures)
            history = await BlockingPool.shared.run {
                FiringHistory(
                    directory: options.paths.stateDirectory, limit: options.historyLimit, logger: logger,
                    failures: failures)
            }
        }
        let (restored, journalOpen) = store.open()

        let results = Task(executorPreference: options.loop) { [runner, events] in
            for await result in runner.results { events.yield(.actionResult(result)) }
        }
        await runner.resumeOutbox()
        // `time:` windows and `once_per:` read the local wall clock; the engine gets it as numbers.
        let localClock = LocalClock(
            origin: Int64(startWall.secondsSince1970.rounded(.down)),
            utcOffset: { SystemTimeZone.utcOffset(atUnixTime: $0) })
        await perform(
            .start(
                DaemonStart(
                    ruleSet: loaded.ruleSet, restored: restored, journalOpen: journalOpen, localClock: localClock,
                    bootID: BootID.current())))
        let count = DaemonCore.count(core.ruleSet.rules.count, "rule")
        logger.notice("ready: \(count), state in \(options.paths.stateDirectory)")

        var pending = eventStream.makeAsyncIterator()
        // Shutdowns performed, and `.shutdown` events taken from the stream (each one asked is both).
        var shutdownsTaken = 0
        var shutdownEventsSeen = 0
        while let event = await pending.next() {
            if case .shutdown = event {
                shutdownEventsSeen += 1
                // Performed already, ahead of the events queued before it.
                if shutdownEventsSeen <= shutdownsTaken { continue }
                shutdownsTaken += 1
            } else {
                while shutdownsTaken < shutdownsAsked.load(ordering: .sequentiallyConsistent), core.phase != .stopped {
                    shutdownsTaken += 1
                    await perform(.shutdown)
                }
                if core.phase == .stopped { break }
            }
            if case .observerEnded(let identity, _, _, _, _) = event { observers[identity] = nil }
            await perform(event)
            if core.phase == .stopped { break }
        }
        // The last snapshot is written on the pool: the state is durable once it is. The history's
        // last lines too, so `netrules history` right after the stop shows them.
        await store.finishWriting()
        await history?.written()

        // Nothing handles events any more: refuse the reloads still waiting (and, through
        // `reloadOnRequest`, those that come), so a control client never waits on a stopped daemon
        // (and the control service it waits in can stop).
        events.finish()
        for reply in reloadReplies.values { reply.resume(returning: core.refusedWhileStopping) }
        reloadReplies = [:]
        results.cancel()
        await stopAttachedServices()
        for watcher in watchers.values { watcher.finish() }
        logger.notice("stopped")
        return 0
    }

    /// Starts `DaemonServices.attached` in order, each as a task of its own.
    private func startAttachedServices() {
        let logger = self.logger
        attached = options.services.attached.map { service in
            Task(executorPreference: options.loop) { [self] in
                do {
                    try await service.run(self)
                } catch is CancellationError {
                } catch {
                    logger.log(.error, service.name, error: error)
                }
            }
        }
    }

    /// Stops the attached services in reverse order, each before the next.
    private func stopAttachedServices() async {
        for task in (attached ?? []).reversed() {
            task.cancel()
            await task.value
        }
        attached = []
    }

    // MARK: - Events and effects

    func now() -> Instant {
        Instant(clock.now - startInstant)
    }

    /// Hands an event to the core, at the time it is handled, and performs what it returns.
    func perform(_ event: DaemonEvent) async {
        let at = now()
        await perform(core.handle(event, at: at, wall: startWall + at.offset))
    }

    /// Performs effects in order. Firings are recorded (journal) before they are submitted, and
    /// their actions start before anything else of theirs happens: the log line, the history
    /// entry, the journal's flush to the disk.
    func perform(_ effects: [DaemonEffect]) async {
        var handedOver: [Firing] = []
        var appended = false
        for effect in effects {
            if !handedOver.isEmpty, !effect.isSubmission { await actionsStarted(&handedOver) }
            switch effect {
            case .submit(let firing, let wallTime, let resumed):
                await runner.submit(firing, wallTime: wallTime)
                if !resumed { handedOver.append(firing) }
            case .appendJournal(let line):
                appended = await append(line) || appended
            case .writeSnapshot(let state):
                writeSnapshot(state)
            case .setAsideStateFile(let reason):
                store.setAside(because: reason)
            case .factsChanged(let changes):
                await publish(changes)
            case .armDeadline(let deadline):
                arm(deadline)
            case .configureObservers(let ruleSet):
                // The first time: the core is up, so the attached services start before the observers.
                if attached == nil { startAttachedServices() }
                configureObservers(for: ruleSet)
                tellFleet(.rules(ruleSet))  // MQTT hook (issue 25)
            case .restartObserver(let identity):
                restartObserver(identity)
            case .stopObservers:
                await stopObservers()
            case .drainRunner:
                Task(executorPreference: options.loop) { [events] in
                    await self.drainRunner()
                    events.yield(.drained)
                }
            case .stopRunningActions:
                let runner = self.runner
                Task(executorPreference: options.loop) { await runner.stop() }
            case .loadRules:
                startLoadingRules()
            case .answerReload(let ticket, let outcome):
                reloadReplies.removeValue(forKey: ticket)?.resume(returning: outcome)
            case .notify(let state):
                options.notify(state)
            case .history(let record):
                self.record(record)
            case .pausesChanged(let names):
                tellFleet(.paused(names))
            case .finished:
                break
            }
        }
        if !handedOver.isEmpty { await actionsStarted(&handedOver) }
        if appended { store.requestFlush() }
    }

    /// Lets the runner start the firings' actions (on the daemon's one executor thread its tasks
    /// are queued behind this one), then logs the firings.
    private func actionsStarted(_ firings: inout [Firing]) async {
        await Task.yield()
        for firing in firings {
            logger.notice(
                "rule '\(firing.rule)' \(firing.edge)",
                metadata: [("rule.id", firing.rule), ("edge", firing.edge.rawValue), ("firing.id", firing.id ?? "")])
            tellFleet(.fired(firing, at: WallClock.now().rfc3339))  // MQTT hook (issue 25)
        }
        firings = []
    }

    /// Tells the `watch` clients and the subscribers (by key) which facts changed.
    func publish(_ changes: [Engine.Step.Change]) async {
        if !watchers.isEmpty {
            let at = WallClock.now().rfc3339
            for change in changes where !change.key.isEngineInternal {
                let change = FactChange(key: change.key, old: change.old, new: change.new, at: at)
                for watcher in watchers.values { watcher.yield(change) }
            }
        }
        await subscriptions.deliver(changes)
        // Any change may have moved a place's round on (a route, an address) without changing
        // its facts (still `claimed`, still `pending`): the prober must hear of it all the same.
        if prober != nil { syncProofs() }
    }

    /// Tells the prober, for each place, the round to prove while its condition holds, or none.
    func syncProofs() {
        guard let prober else { return }
        let facts = core.engine.facts
        for place in core.engine.places where prober.placeNames.contains(place.name) {
            let status = facts[.placeStatus(place.name)].value?.stringValue
            let holds = status == PlaceStatus.here.rawValue || status == PlaceStatus.claimed.rawValue
            prober.want(place.name, round: holds ? core.engine.proofRound(ofPlace: place.name) : nil)
        }
    }

    /// Keeps one sleeping task for the deadline the core armed; none when nothing is pending, so
    /// an idle daemon never wakes up.
    func arm(_ deadline: Instant?) {
        timer?.cancel()
        guard let deadline else {
            timer = nil
            return
        }
        let (target, loop) = (startInstant + deadline.offset, options.loop)
        timer = Task(executorPreference: loop) { [events] in
            do {
                // QuietClock: a hold of hours costs no wake-ups while it waits.
                try await QuietClock(loop: loop).sleep(until: target, tolerance: .milliseconds(1))
                events.yield(.deadline)
            } catch {
                // Cancelled: a newer deadline replaced this one.
            }
        }
    }

    /// Records in the history: entries as the core made them, results on their firing's entry.
    /// A webhook delivered in the background (after being queued, or resumed after a restart)
    /// carries no firing id: its idempotency key finds the firing.
    func record(_ record: DaemonEffect.HistoryRecord) {
        // Read through `self.history`, never a copy of it: a copy alive while the history is
        // changed would make each change copy all its entries.
        guard history != nil else { return }
        switch record {
        case .fired(let firing, let time, let readKeys, let ifAbsent):
            guard let id = firing.id, !ifAbsent || history?.entry(id: id) == nil else { return }
            history?.record(HistoryEntry.fired(firing, id: id, time: time, readKeys: readKeys))
        case .dropped(let entry):
            history?.record(entry)
        case .result(let result, let otherwise):
            guard let id = result.firingID ?? result.idempotencyKey.flatMap({ history?.id(ofDelivery: $0) }) else {
                if let otherwise { history?.record(otherwise) }
                return
            }
            if history?.update(id: id, { $0.apply(result) }) == false, let otherwise { history?.record(otherwise) }
        }
    }

    // MARK: - Queries

    /// The facts as observers reported them (the engine's own `clock.local` left out).
    /// Reloads in the event loop's order, as SIGHUP does, and answers with what happened.
    package func reloadOnRequest() async -> ReloadOutcome {
        let ticket = nextReloadTicket
        nextReloadTicket += 1
        let refused = core.refusedWhileStopping
        return await withCheckedContinuation { reply in
            reloadReplies[ticket] = reply
            // Once the event loop ended nothing would answer: say so rather than wait forever.
            if case .terminated = events.yield(.reloadRequested(ticket)) {
                reloadReplies[ticket] = nil
                reply.resume(returning: refused)
            }
        }
    }

    package func facts() async -> FactStore {
        var facts = core.engine.facts
        if facts[.localClock].isKnown { facts.apply(FactUpdate([.localClock: .unknown])) }
        return facts
    }

    package func explain(rule: String) async -> Explanation? { core.engine.explain(rule: rule) }

    package func ruleNames() async -> [String] { core.engine.rules.map(\.name) }

    package func pausedRules() async -> [PausedRule] { core.pausedRules }

    package func factKeysRead() async -> Set<FactKey> { core.ruleSet.factKeysRead }

    package func engineTime() async -> Instant? { now() }

    package func history(_ query: HistoryQuery) async -> [HistoryEntry]? {
        guard let history else { return nil }
        return query.select(history.entries, now: Int64(WallClock.now().secondsSince1970.rounded(.down)))
    }

    package func failedObservers() async -> [FailedObserver] {
        core.supervision.failures.values.sorted { $0.name < $1.name }.map { failure in
            FailedObserver(
                name: failure.name, error: failure.error, since: core.wallTime(of: failure.since).rfc3339,
                attempts: failure.attempts, nextAttempt: failure.nextAttempt.map { core.wallTime(of: $0).rfc3339 },
                facts: failure.facts.map(\.rawValue), rules: failure.waitingRules)
        }
    }

    package func failedReload() async -> FailedReload? { core.reloadFailure?.shown }

    /// The runner's outbox; the runner answers, so the daemon's event loop does not wait on it.
    package nonisolated func outbox() async -> OutboxSize? { await runner.outbox() }

    package func factChanges() async -> AsyncStream<FactChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: FactChange.self, bufferingPolicy: .bufferingNewest(4096))
        let id = nextWatcher
        nextWatcher += 1
        watchers[id] = continuation
        updateSignalSampling()
        let loop = options.loop
        continuation.onTermination = { [weak self] _ in
            Task(executorPreference: loop) { await self?.removeWatcher(id) }
        }
        return stream
    }

    private func removeWatcher(_ id: Int) {
        watchers[id] = nil
        updateSignalSampling()
    }
}

extension Daemon {
    /// `mkdir -p` for the state directory: every directory it creates, parents included, gets mode
    /// 0700 whatever the umask and is fsynced into its parent; one that exists is left as it is.
    /// `StateDirectoryLock` calls it first at start.
    /// - Throws: `SystemCallError` from `mkdir`, or `ENOTDIR` when the path or a parent is a file.
    static func createStateDirectory(_ path: String) throws(SystemCallError) {
        try AtomicFile.makeDirectories(path, mode: 0o700)
    }
}
