import FoundationEssentials
import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesLinux
import NetRulesProbes
import NetRulesSystem
import Synchronization

/// The long-running service: observers → fact store and engine → action runner.
///
/// One actor owns the engine (and with it the fact store), so there is one writer. Everything
/// that happens reaches it as an `Event` on one stream, handled in order: fact updates, `for:`
/// deadlines, reloads, action results, shutdown. Time is the daemon's `ContinuousClock` since it
/// started; persisted deadlines are wall-clock, mapped back on restart.
///
/// Start order is runner → engine → observers; shutdown runs in reverse: observers stop, the
/// runner finishes running actions within `shutdownGrace`, the state is persisted.
public actor Daemon: DaemonQueries {
    enum Event: Sendable {
        case facts(source: String, update: FactUpdate)
        case tick
        case reload
        /// A reload asked through the control socket, which waits for its outcome.
        case reloadRequested(CheckedContinuation<ReloadOutcome, Never>)
        case shutdown
        case result(ActionResult)
        case observerEnded(identity: String, error: String?)
    }

    /// Keys whose change means "the network changed": the portal probe checks again.
    static let networkKeys: Set<FactKey> = [.ip, .gateway, .gateway6, .ssid, .bssid, .network]

    let options: DaemonOptions
    let logger: Logger
    let clock = ContinuousClock()
    let startInstant: ContinuousClock.Instant
    let startWall: Date
    let events: AsyncStream<Event>
    let eventSink: AsyncStream<Event>.Continuation
    /// Distinguishes this process's firing ids from those of earlier runs.
    let processToken: String
    var engine = Engine(rules: [])
    var ruleSet = RuleSet()
    let runner: ActionRunner
    var observers: [String: Task<Void, Never>] = [:]
    var portal: PortalProbe?
    /// How often the Wi-Fi observer samples `signal`, from the rules and the `watch` clients.
    let signalSampling = SignalSampling()
    var timer: Task<Void, Never>?
    var timerDeadline: Instant?
    var watchers: [Int: AsyncStream<FactChange>.Continuation] = [:]
    var nextWatcher = 0
    var inflight = InflightFirings()
    /// Recent firings and dropped edges for `netrules history`; nil with `historyLimit` 0.
    var history: FiringHistory?
    /// Numbers the entries of dropped edges, which have no firing id of their own.
    var nextDropNumber = 1
    var nextFiringNumber = 1
    /// What the state file last written reflects: the engine's durable version and the in-flight list.
    var persistedVersion: (engine: UInt64, inflight: UInt64)?
    /// Where each change of the persisted state is appended before acting; nil when it cannot be
    /// opened (then every change rewrites `state.json`, as before the journal).
    var journal: StateJournal?
    /// The state as `state.json` plus the journal hold it, to append only what changed.
    var lastSaved: PersistedState?
    /// How many times SIGTERM or SIGINT arrived.
    nonisolated let shutdownRequests = Mutex(0)

    public init(options: DaemonOptions) {
        self.options = options
        self.logger = options.logger
        startInstant = clock.now
        startWall = Date()
        (events, eventSink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        processToken = String(UInt32.random(in: .min ... .max), radix: 16)
        let log = options.logger.child("netrules.actions")
        runner = ActionRunner(
            stateDirectory: options.paths.stateDirectory, concurrency: options.concurrency,
            environment: options.environment, logger: { log.notice($0) }, clock: QuietClock())
    }

    /// Asks for a reload (SIGHUP, a rule file changed). Safe from any thread.
    public nonisolated func reload() { eventSink.yield(.reload) }

    /// Asks for a graceful shutdown (SIGTERM, SIGINT); asked again, stops running actions at
    /// once (the state is still saved). Safe from any thread.
    public nonisolated func shutdown() {
        let first = shutdownRequests.withLock { count in
            count += 1
            return count == 1
        }
        if first {
            eventSink.yield(.shutdown)
        } else {
            logger.notice("asked again to stop: stopping running actions now")
            let runner = self.runner
            Task(executorPreference: TaskPlacement.preferred) { await runner.stop() }
        }
    }

    /// Runs until `shutdown()`; returns the exit code: 0 after a clean shutdown, 65 when the rules
    /// are invalid at start, 1 when they cannot be read.
    public func run() async -> Int32 {
        let (result, unreadable, _) = load()
        guard let loaded = result else { return unreadable ? 1 : 65 }
        ruleSet = loaded.ruleSet
        engine = Engine(rules: ruleSet.rules)
        // `time:` windows and `once_per:` read the local wall clock; the engine gets it as numbers.
        engine.setClock(
            LocalClock(
                origin: Int64(startWall.timeIntervalSince1970.rounded(.down)),
                utcOffset: { SystemTimeZone.utcOffset(atUnixTime: $0) }))
        do {
            try FileManager.default.createDirectory(
                atPath: options.paths.stateDirectory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            // FileManager's error prints as a CocoaError dump; a person needs what and how to fix it.
            logger.critical(
                "cannot create the state directory '\(options.paths.stateDirectory)'; make its parent writable "
                    + "by this user, or choose another with --state-dir")
            return 1
        }
        if options.historyLimit > 0 {
            let log = logger
            history = FiringHistory(
                directory: options.paths.stateDirectory, limit: options.historyLimit, log: { log.error($0) })
            // Dropped edges reach the history through the engine's trace.
            engine.tracing = true
        }
        let journalLines = restoreState()
        do {
            journal = try StateJournal(directory: options.paths.stateDirectory, lines: journalLines)
        } catch {
            logger.error("cannot open the state journal: \(error); every change will rewrite state.json")
        }

        let results = Task(executorPreference: TaskPlacement.preferred) { [runner, eventSink] in
            for await result in runner.results { eventSink.yield(.result(result)) }
        }
        await runner.resumeOutbox()
        await resubmitInflight()
        startObservers()
        rescheduleTimer()
        persist()
        compactJournal(force: true)

        let count = ruleSet.rules.count
        options.notify("READY=1\nSTATUS=watching with \(count) rule\(count == 1 ? "" : "s")")
        logger.notice("ready: \(count) rule\(count == 1 ? "" : "s"), state in \(options.paths.stateDirectory)")

        loop: for await event in events {
            switch event {
            case .facts(let source, let update):
                await handleFacts(update, from: source)
            case .tick:
                timerDeadline = nil
                await dispatch(engine.tick(at: now()))
            case .reload:
                _ = await reloadRules()
            case .reloadRequested(let reply):
                reply.resume(returning: await reloadRules())
            case .result(let result):
                handle(result)
            case .observerEnded(let identity, let error):
                observers[identity] = nil
                logger.error("observer '\(identity)' stopped\(error.map { ": \($0)" } ?? "")")
            case .shutdown:
                break loop
            }
            rescheduleTimer()
            persist()
            // After the event's actions were handed to the runner: never between an event and its action.
            compactJournal()
        }

        options.notify("STOPPING=1")
        logger.notice("stopping: waiting up to \(DurationSyntax.format(options.shutdownGrace)) for running actions")
        await stopObservers()
        timer?.cancel()
        await drainRunner()
        results.cancel()
        persist()
        compactJournal(force: true)
        for watcher in watchers.values { watcher.finish() }
        logger.notice("stopped")
        return 0
    }

    // MARK: - Facts and firings

    func now() -> Instant {
        Instant(clock.now - startInstant)
    }

    func wallTime(of instant: Instant) -> Date {
        startWall.addingTimeInterval(instant.seconds)
    }

    /// The daemon's instant for a saved wall-clock time; nil when it is not a number or further
    /// than `DurationSyntax.maximum` from now (no saved deadline can be, unless the file is bad).
    func instant(ofWall seconds: Double) -> Instant? {
        let offset = seconds - startWall.timeIntervalSince1970
        let limit = DurationSyntax.seconds(DurationSyntax.maximum) * 2
        guard offset.isFinite, abs(offset) <= limit else { return nil }
        return Instant(.nanoseconds(Int64(offset * 1e9)))
    }

    private func handleFacts(_ update: FactUpdate, from source: String) async {
        var update = update
        if source == "netlink" {
            // The netlink observer reports every interface there is: one it never named does not exist.
            update.completeNamespaces.insert("interfaces")
        }
        let before = engine.facts
        let firings = engine.apply(update, at: now())
        let after = engine.facts
        guard before.version != after.version else {
            await dispatch(firings)
            return
        }
        var changed: [FactKey] = []
        for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
            changed.append(key)
        }
        changed.sort()
        if !watchers.isEmpty {
            let at = WallClock.rfc3339(Date())
            for key in changed where !key.isEngineInternal {
                let change = FactChange(key: key, old: before[key], new: after[key], at: at)
                for watcher in watchers.values { watcher.yield(change) }
            }
        }
        if changed.contains(.connectivity) {
            await runner.connectivityChanged(to: after[.connectivity].value?.plainText)
        }
        if let portal, changed.contains(where: { Self.networkKeys.contains($0) || $0.namespace == "interfaces" }) {
            portal.recheck()
        }
        await dispatch(firings)
    }

    /// Records the firings as in flight (persisted before anything runs, so a crash resubmits
    /// them instead of losing them) and hands them to the runner.
    func dispatch(_ firings: [Firing]) async {
        recordDrops()
        guard !firings.isEmpty else { return }
        var submitted: [(Firing, String)] = []
        // The firings of one update share one fact snapshot: sort its facts once, not once per firing.
        var knownFacts: (version: UInt64, facts: [(FactKey, FactState)])?
        for var firing in firings {
            firing.id = "\(processToken)-\(nextFiringNumber)"
            nextFiringNumber += 1
            let time = WallClock.rfc3339(wallTime(of: firing.at))
            let fingerprint = engine.index(ofRule: firing.rule).map { engine.rules[$0].fingerprint } ?? ""
            if knownFacts?.version != firing.facts.version {
                knownFacts = (firing.facts.version, firing.facts.known.map { ($0.key, $0.state) })
            }
            inflight.append(
                PersistedState.SavedFiring(
                    id: firing.id!, rule: firing.rule, fingerprint: fingerprint, edge: firing.edge, time: time,
                    facts: knownFacts!.facts, actionCount: firing.actions.count))
            logger.notice(
                "rule '\(firing.rule)' \(firing.edge)",
                metadata: [("rule.id", firing.rule), ("edge", firing.edge.rawValue), ("firing.id", firing.id!)])
            submitted.append((firing, time))
        }
        persist()
        for (firing, time) in submitted {
            await runner.submit(firing, wallTime: time)
        }
        // Let the runner start the actions first: on the daemon's one executor thread its tasks are
        // queued behind this one, and nothing below is needed before a program starts.
        await Task.yield()
        // The history is what `history` shows, not the durability record; results reach it through
        // the event loop, which resumes only after this returns, so the entries exist by then.
        for (firing, time) in submitted { recordInHistory(firing, time: time) }
    }

    /// Notes how far a firing got, and retires it from the in-flight list once its last action
    /// reported (the runner logs results). The count is the one the firing had when it fired, so a
    /// reload that changes the rule's actions cannot retire it early or keep it forever.
    private func handle(_ result: ActionResult) {
        recordInHistory(result)
        guard let id = result.firingID, let firing = inflight[id] else { return }
        let actionCount =
            firing.actionCount ?? engine.index(ofRule: result.rule).map { engine.rules[$0].actions.count } ?? 0
        if result.index >= actionCount - 1 {
            inflight.retire(id)
        } else {
            inflight.advance(id, to: result.index + 1)
        }
    }

    // MARK: - Timer

    /// Keeps one sleeping task for the earliest `for:` deadline; none when nothing is pending,
    /// so an idle daemon never wakes up.
    func rescheduleTimer() {
        let deadline = engine.nextDeadline
        guard deadline != timerDeadline else { return }
        timer?.cancel()
        timerDeadline = deadline
        guard let deadline else {
            timer = nil
            return
        }
        let target = startInstant + deadline.offset
        timer = Task(executorPreference: TaskPlacement.preferred) { [eventSink] in
            do {
                // QuietClock: a hold of hours costs no wake-ups while it waits.
                try await QuietClock().sleep(until: target, tolerance: .milliseconds(1))
                eventSink.yield(.tick)
            } catch {
                // Cancelled: a newer deadline replaced this one.
            }
        }
    }

    // MARK: - Queries

    /// The facts as observers reported them (the engine's own `clock.local` left out).
    /// Reloads in the event loop's order, as SIGHUP does, and answers with what happened.
    public func reloadOnRequest() async -> ReloadOutcome {
        await withCheckedContinuation { eventSink.yield(.reloadRequested($0)) }
    }

    public func facts() async -> FactStore {
        var facts = engine.facts
        if facts[.localClock].isKnown { facts.apply(FactUpdate([.localClock: .unknown])) }
        return facts
    }

    public func explain(rule: String) async -> Explanation? { engine.explain(rule: rule) }

    public func ruleNames() async -> [String] { engine.rules.map(\.name) }

    public func engineTime() async -> Instant? { now() }

    public func history(_ query: HistoryQuery) async -> [HistoryEntry]? {
        guard let history else { return nil }
        return query.select(history.entries, now: Int64(Date().timeIntervalSince1970.rounded(.down)))
    }

    public func factChanges() async -> AsyncStream<FactChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: FactChange.self, bufferingPolicy: .bufferingNewest(4096))
        let id = nextWatcher
        nextWatcher += 1
        watchers[id] = continuation
        updateSignalSampling()
        continuation.onTermination = { [weak self] _ in
            Task(executorPreference: TaskPlacement.preferred) { await self?.removeWatcher(id) }
        }
        return stream
    }

    private func removeWatcher(_ id: Int) {
        watchers[id] = nil
        updateSignalSampling()
    }
}
