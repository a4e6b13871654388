import NetRulesCore

/// The daemon's decisions, without its wiring: a value that takes events and returns effects.
///
/// It owns the engine (and with it the fact store), the firings in flight and what was last
/// persisted; it performs no I/O and reads no clock. Each event comes with the engine instant and
/// the wall time it happened at; the `Daemon` actor performs the effects (spawns, journal lines,
/// observer tasks, timers) in the order they are returned, and a test can simply read them
/// (`NetRulesDaemonTests`). The one thing it does beside returning effects is logging, through
/// the `Logger` it was given.
///
/// The life of a core: `.start` (restores the saved state, resubmits firings in flight, starts
/// observers, snapshots the state), then any events, then `.shutdown` (observers stop, the runner
/// drains while action results are still recorded), then `.drained` (a last snapshot, `.finished`).
package struct DaemonCore {
    package enum Phase: Sendable {
        case starting, running, stopping, stopped
    }

    /// The journal is folded into `state.json` once it holds this many lines.
    package static let compactionLines = 256

    package private(set) var engine = Engine(rules: [])
    package private(set) var ruleSet = RuleSet()
    package var inflight = InflightFirings()
    package private(set) var phase = Phase.starting
    /// The deadline last armed, to arm only a change.
    package private(set) var armedDeadline: Instant?
    /// Lines appended to the journal since it was last emptied.
    package var journalLines = 0
    package private(set) var nextFiringNumber = 1

    /// Distinguishes this process's firing ids from those of earlier runs.
    package let processToken: String
    package let logger: Logger
    /// Whether firings and dropped edges go to the history (`run --history-limit 0` turns it off).
    package let recordsHistory: Bool
    /// Numbers the entries of dropped edges, which have no firing id of their own.
    package var nextDropNumber = 1
    package var journalOpen = false
    /// The kernel's boot id this process runs in, saved with the state.
    package var bootID: String?
    /// What the state last recorded reflects: the engine's durable version, the in-flight list and
    /// the paused rules.
    package var persistedVersion: (engine: UInt64, inflight: UInt64, paused: UInt64)?
    /// The state as `state.json` plus the journal hold it, to append only what changed.
    package var lastSaved: PersistedState?
    /// The rules paused by a command (`RulePause`), by name: only rules the core runs, while the
    /// rule set has `mqtt: commands: true`.
    package var paused: [String: RulePause] = [:]
    /// Moves on with each change of `paused`, for `persist`.
    package var pausedVersion: UInt64 = 0
    /// The facts each observer reported and the restarts due, to supervise them.
    package var supervision = ObserverSupervision()
    /// The control clients waiting for the reload being read, nil when none is; and those (or a
    /// signal: an empty list) that asked while it was read, nil when nobody did: they get the next
    /// read, since a file may have changed after the first read began.
    package var reloading: [ReloadTicket]?
    package var reloadQueued: [ReloadTicket]?
    /// The reloads that failed since the rules last loaded; nil while the last one loaded.
    package private(set) var reloadFailure: ReloadFailure?
    /// How long shutdown waits for running actions (for the log; the daemon times the wait).
    package let shutdownGrace: Duration
    /// The current event's instant and wall time: wall times of other instants are mapped from them.
    package var now = Instant.zero
    package var wallNow = WallTime(secondsSince1970: 0)

    package init(processToken: String, logger: Logger, recordsHistory: Bool, shutdownGrace: Duration = .seconds(30)) {
        self.processToken = processToken
        self.shutdownGrace = shutdownGrace
        self.logger = logger
        self.recordsHistory = recordsHistory
    }

    /// Handles one event that happened at `at` (engine time) and `wall` (the wall clock then),
    /// and returns what to do about it, in order.
    package mutating func handle(_ event: DaemonEvent, at: Instant, wall: WallTime) -> [DaemonEffect] {
        now = at
        wallNow = wall
        var effects: [DaemonEffect] = []
        switch (phase, event) {
        case (.starting, .start(let start)):
            begin(start, into: &effects)
        case (.running, .facts(let update, let source)):
            if let source { supervision.record(update, from: source) }
            apply(update, into: &effects)
        case (.running, .factUpdates(let updates, let source)):
            // What the observer said is recorded before any of it is applied, as one update is.
            if let source { supervision.record(updates, from: source) }
            for update in updates { apply(update, into: &effects) }
        case (.running, .proof(let place, let round, let outcome)):
            let step = engine.recordProof(outcome, place: place, round: round, at: now)
            dispatch(step.firings, into: &effects)
            if !step.changes.isEmpty { effects.append(.factsChanged(step.changes)) }
        case (.running, .pause(let rule, let pause, let by)):
            command(rule, paused: pause, by: by, into: &effects)
        case (.running, .deadline):
            armedDeadline = nil
            dispatch(engine.tick(at: now), into: &effects)
            for restart in supervision.takeDue(at: now) {
                logger.notice("observer '\(restart.name)': starting again (attempt \(restart.attempt))")
                effects.append(.restartObserver(identity: restart.identity))
            }
        case (.running, .reloadRequested(let ticket)):
            requestReload(ticket, into: &effects)
            return effects
        case (_, .reloadRequested(let ticket)):
            if let ticket { effects.append(.answerReload(ticket, refusedWhileStopping)) }
            return effects
        case (.running, .reloaded(let newRules, let report)):
            ruleSet = newRules
            reloadFailure = nil
            let firings = engine.replaceRules(newRules.rules, places: newRules.places, at: now)
            effects.append(.configureObservers(newRules))
            logger.notice("reloaded: \(Self.count(newRules.rules.count, "rule"))\(Self.describe(engine.lastReload))")
            keepPausesOfRunningRules(into: &effects)
            dispatch(firings, into: &effects)
            effects.append(.notify("READY=1\nSTATUS=watching with \(ruleSet.rules.count) rules"))
            finishReload(
                ReloadOutcome(
                    reloaded: true, rules: ruleSet.rules.count, rendered: report.text, diagnostics: report.diagnostics,
                    refused: report.refused), into: &effects)
        case (.running, .reloadFailed(let report)):
            logger.error("reload failed: keeping the \(ruleSet.rules.count) rules already running")
            reloadFailure = ReloadFailure(report, at: wallNow, after: reloadFailure)
            effects.append(.notify("READY=1\nSTATUS=watching with \(ruleSet.rules.count) rules"))
            finishReload(
                ReloadOutcome(
                    reloaded: false, rules: ruleSet.rules.count, rendered: report.text, diagnostics: report.diagnostics,
                    refused: report.refused), into: &effects)
        case (_, .reloaded), (_, .reloadFailed):
            // Read while shutdown began: the running rules stay to the end.
            refuseReloads(into: &effects)
            return effects
        case (.running, .actionResult(let result)), (.stopping, .actionResult(let result)):
            record(result, into: &effects)
        case (.running, .observerEnded(let identity, let name, let error, let ranFor, let owns)):
            let ended = supervision.ended(
                identity, name: name, error: error, ranFor: ranFor, owns: owns, at: now, facts: engine.facts)
            apply(ended.unknown, into: &effects)
            let waiting = rulesWaiting(on: Set(ended.unknown.changes.keys).union(owns))
            supervision.noteWaitingRules(identity, waiting)
            let message =
                "observer '\(name)' stopped\(error.map { ": \($0)" } ?? "")\(Self.unknownNote(ended.unknown))"
                + (waiting.isEmpty
                    ? ""
                    : "; \(Self.count(waiting.count, "rule")) cannot become true until it is back: "
                        + waiting.map { "'\($0)'" }.joined(separator: ", "))
                + "; starting it again in \(DurationSyntax.format(ended.delay))"
            // The same failure again (a socket still refused) is news only the first time.
            if ended.repeated { logger.info(message) } else { logger.error(message) }
        case (.running, .observerRetired(let identity, let name)):
            let unknown = supervision.retired(identity, facts: engine.facts)
            if !unknown.isEmpty { logger.info("observer '\(name)' is no longer needed\(Self.unknownNote(unknown))") }
            apply(unknown, into: &effects)
        case (_, .observerEnded(_, let name, let error, _, _)):
            logger.error("observer '\(name)' stopped\(error.map { ": \($0)" } ?? "")")
        case (.running, .shutdown):
            logger.notice("stopping: waiting up to \(DurationSyntax.format(shutdownGrace)) for running actions")
            phase = .stopping
            // A reload asked meanwhile would never be read: say so now (one being read is
            // answered when it ends).
            for ticket in reloadQueued ?? [] { effects.append(.answerReload(ticket, refusedWhileStopping)) }
            reloadQueued = nil
            effects.append(.notify("STOPPING=1"))
            effects.append(.stopObservers)
            if armedDeadline != nil {
                armedDeadline = nil
                effects.append(.armDeadline(nil))
            }
            effects.append(.drainRunner)
        case (.stopping, .shutdown):
            logger.notice("asked again to stop: stopping running actions now")
            effects.append(.stopRunningActions)
            return effects
        case (.stopping, .drained):
            refuseReloads(into: &effects)
            persist(into: &effects)
            snapshot(into: &effects)
            phase = .stopped
            effects.append(.finished)
            return effects
        case (_, .journalAppendFailed):
            // The snapshot holds everything the line held, and empties the journal behind it.
            snapshot(into: &effects)
            return effects
        case (_, .snapshotFailed):
            // Try again, whole, after the next event (not now: that would fail the same way).
            persistedVersion = nil
            lastSaved = nil
            return effects
        default:
            // Facts, deadlines and reloads after shutdown began; a second start or shutdown.
            return effects
        }
        guard phase == .running || phase == .stopping else { return effects }
        if phase == .running { armDeadline(into: &effects) }
        persist(into: &effects)
        // After the event's actions were handed to the runner: never between an event and its action.
        if journalOpen, journalLines >= Self.compactionLines { snapshot(into: &effects) }
        return effects
    }

    /// What a reload kept, for its log line: `; kept windows of 3 rules, reset 1: condition
    /// changed (office)`; nothing when no rule was kept.
    package static func describe(_ reload: (kept: Int, conditionChanged: [String])) -> String {
        let keptWindows = reload.kept + reload.conditionChanged.count
        guard keptWindows > 0 else { return "" }
        var text = "; kept windows of \(count(keptWindows, "rule"))"
        if !reload.conditionChanged.isEmpty {
            text +=
                ", reset \(reload.conditionChanged.count): condition changed ("
                + reload.conditionChanged.joined(separator: ", ") + ")"
        }
        return text
    }

    // MARK: - Start

    private mutating func begin(_ start: DaemonStart, into effects: inout [DaemonEffect]) {
        ruleSet = start.ruleSet
        engine = Engine(rules: ruleSet.rules, places: ruleSet.places)
        engine.setClock(start.localClock)
        // Dropped edges reach the history through the engine's trace.
        engine.tracing = recordsHistory
        journalOpen = start.journalOpen
        bootID = start.bootID
        if let saved = start.restored {
            // A state saved in another boot: the world it confirmed is gone (the VPN is down, the
            // share unmounted), so every rule starts as on a first run; the windows stay, so a
            // check-in still happens once a day. A file without a boot id counts as this boot's.
            let newBoot = saved.bootID != nil && start.bootID != nil && saved.bootID != start.bootID
            if newBoot { logger.notice("new boot: rules start from scratch (windows kept)") }
            restore(saved, forgetTruth: newBoot, into: &effects)
            paused = saved.paused.mapValues { RulePause(by: $0.by, since: WallTime(secondsSince1970: $0.since)) }
            keepPausesOfRunningRules(into: &effects, announce: false)
            for (name, pause) in paused.sorted(by: { $0.key < $1.key }) {
                logger.notice(
                    "rule '\(name)' is paused (from \(pause.by) at \(pause.since.rfc3339)): its firings are not run")
            }
        }
        resubmitInflight(into: &effects)
        effects.append(.configureObservers(ruleSet))
        phase = .running
        armDeadline(into: &effects)
        // Start from one snapshot: the journal replayed and emptied.
        snapshot(into: &effects)
        let count = Self.count(ruleSet.rules.count, "rule")
        effects.append(.notify("READY=1\nSTATUS=watching with \(count)"))
    }

    /// Restores rule states and in-flight firings; a saved time out of range sets the whole file
    /// aside (a corrupt file, or one written with other limits, would fail every start the same way).
    private mutating func restore(_ saved: PersistedState, forgetTruth: Bool, into effects: inout [DaemonEffect]) {
        var states: [String: (fingerprint: String, identity: String?, state: RuleState)] = [:]
        for (name, rule) in saved.rules {
            var hold: RuleState.Hold?
            var cooldown: Instant?
            if let saved = rule.hold {
                guard let deadline = instant(ofWall: saved.deadline) else {
                    effects.append(.setAsideStateFile(reason: "rule '\(name)' has a saved hold deadline out of range"))
                    return
                }
                hold = RuleState.Hold(target: saved.target, deadline: deadline)
            }
            if let saved = rule.cooldownUntil {
                guard let until = instant(ofWall: saved) else {
                    effects.append(.setAsideStateFile(reason: "rule '\(name)' has a saved cooldown out of range"))
                    return
                }
                cooldown = until
            }
            var oncePer: [Edge: Instant] = [:]
            for (edgeName, saved) in rule.oncePerUntil {
                guard let edge = Edge(rawValue: edgeName), let until = instant(ofWall: saved) else {
                    effects.append(.setAsideStateFile(reason: "rule '\(name)' has a saved once_per time out of range"))
                    return
                }
                oncePer[edge] = until
            }
            states[name] = (
                rule.fingerprint, rule.identity,
                RuleState(confirmed: rule.confirmed, hold: hold, cooldownUntil: cooldown, oncePerUntil: oncePer)
            )
        }
        engine.restore(states, forgetTruth: forgetTruth)
        inflight = InflightFirings(saved.inflight)
        nextFiringNumber = saved.nextFiringNumber
        logger.info("restored the state of \(states.count) rules and \(inflight.count) firings in flight")
    }

    /// Firings a previous process recorded but did not see through: submitted again with their
    /// original id (so a webhook already in the outbox is not sent twice), from the action they
    /// stopped at.
    private mutating func resubmitInflight(into effects: inout [DaemonEffect]) {
        let pending = inflight.all
        inflight = InflightFirings()
        for saved in pending {
            guard let index = engine.index(ofRule: saved.rule), engine.rules[index].fingerprint == saved.fingerprint
            else {
                logger.warning("dropping an in-flight firing of '\(saved.rule)': the rule changed or is gone")
                continue
            }
            // One that no action of had reported (it may never have started: queued when the daemon
            // stopped) runs only while its rule is still in the state it fired for; after a new
            // boot none is, and the rule fires afresh if its condition holds.
            if saved.nextAction == 0, engine.states[index].confirmed != (saved.edge == .enter) {
                logger.notice(
                    "not resuming rule '\(saved.rule)' \(saved.edge) from before the restart: "
                        + "the rule is no longer in that state")
                continue
            }
            var facts = FactStore()
            facts.apply(FactUpdate(Dictionary(saved.facts, uniquingKeysWith: { a, _ in a })))
            var firing = Firing(
                rule: saved.rule, edge: saved.edge, at: now, facts: facts, actions: engine.rules[index].actions)
            firing.id = saved.id
            firing.firstAction = saved.nextAction
            inflight.append(saved)
            logger.notice(
                "resuming rule '\(saved.rule)' \(saved.edge) from before the restart"
                    + (saved.nextAction > 0 ? " at action \(saved.nextAction)" : ""))
            if recordsHistory {
                effects.append(
                    .history(.fired(firing, time: saved.time, readKeys: readKeys(saved.rule), ifAbsent: true)))
            }
            effects.append(.submit(firing, wallTime: saved.time, resumed: true))
        }
    }

    // MARK: - Reloads

    /// One read of the rule files at a time: a request while one is read waits for the next.
    private mutating func requestReload(_ ticket: ReloadTicket?, into effects: inout [DaemonEffect]) {
        let tickets = ticket.map { [$0] } ?? []
        if reloading != nil {
            reloadQueued = (reloadQueued ?? []) + tickets
            return
        }
        reloading = tickets
        effects.append(.loadRules)
    }

    /// Answers the clients of the read that ended, and starts the read asked for meanwhile.
    private mutating func finishReload(_ outcome: ReloadOutcome, into effects: inout [DaemonEffect]) {
        for ticket in reloading ?? [] { effects.append(.answerReload(ticket, outcome)) }
        reloading = nil
        if let queued = reloadQueued {
            reloadQueued = nil
            reloading = queued
            effects.append(.loadRules)
        }
    }

    /// Answers every waiting client: no reload once shutdown began.
    private mutating func refuseReloads(into effects: inout [DaemonEffect]) {
        for ticket in (reloading ?? []) + (reloadQueued ?? []) {
            effects.append(.answerReload(ticket, refusedWhileStopping))
        }
        reloading = nil
        reloadQueued = nil
    }

    /// The answer to a reload asked once shutdown began.
    package var refusedWhileStopping: ReloadOutcome {
        ReloadOutcome(reloaded: false, rules: ruleSet.rules.count, rendered: "netrules is stopping: not reloaded\n")
    }

    // MARK: - Facts

    /// Applies an update to the engine: its firings dispatched, then its changes published.
    private mutating func apply(_ update: FactUpdate, into effects: inout [DaemonEffect]) {
        let step = engine.step(update, at: now)
        dispatch(step.firings, into: &effects)
        // After the firings' submissions: `watch` clients and subscribers can wait for their actions.
        if !step.changes.isEmpty { effects.append(.factsChanged(step.changes)) }
    }

    /// The rules that read one of `keys` and are unknown now: they cannot fire until those facts
    /// are known again.
    package func rulesWaiting(on keys: Set<FactKey>) -> [String] {
        guard !keys.isEmpty else { return [] }
        return engine.rules.filter { rule in
            rule.condition.readKeys.contains(where: keys.contains) && rule.condition.evaluate(engine.facts) == .unknown
        }.map(\.name)
    }

    /// `; its facts are unknown until it is back (ip, gateway, +3 more)`, or nothing when it had none.
    package static func unknownNote(_ update: FactUpdate) -> String {
        guard !update.isEmpty else { return "" }
        let keys = update.changes.keys.map(\.rawValue).sorted()
        let shown = keys.prefix(5).joined(separator: ", ") + (keys.count > 5 ? ", +\(keys.count - 5) more" : "")
        return
            "; the \(count(keys.count, "fact")) it reported \(keys.count == 1 ? "is" : "are") unknown until it is back (\(shown))"
    }

    // MARK: - Firings

    /// Records the firings as in flight, persists that (before anything runs, so a crash
    /// resubmits them instead of losing them), and hands them to the runner.
    private mutating func dispatch(_ firings: [Firing], into effects: inout [DaemonEffect]) {
        recordDrops(into: &effects)
        guard !firings.isEmpty else { return }
        let firings = paused.isEmpty ? firings : skipPaused(firings, into: &effects)
        guard !firings.isEmpty else { return }
        var submitted: [(Firing, String)] = []
        // The firings of one update share one fact snapshot: sort its facts once, not once per firing.
        var knownFacts: (version: UInt64, facts: [(FactKey, FactState)])?
        for var firing in firings {
            let id = "\(processToken)-\(nextFiringNumber)"
            firing.id = id
            nextFiringNumber += 1
            let time = wallTime(of: firing.at).rfc3339
            let fingerprint = engine.index(ofRule: firing.rule).map { engine.rules[$0].fingerprint } ?? ""
            if knownFacts?.version != firing.facts.version {
                knownFacts = (firing.facts.version, firing.facts.known.map { ($0.key, $0.state) })
            }
            inflight.append(
                PersistedState.SavedFiring(
                    id: id, rule: firing.rule, fingerprint: fingerprint, edge: firing.edge, time: time,
                    facts: knownFacts!.facts, actionCount: firing.actions.count))
            submitted.append((firing, time))
        }
        persist(into: &effects)
        for (firing, time) in submitted { effects.append(.submit(firing, wallTime: time, resumed: false)) }
        // The history is what `history` shows, not the durability record: after the submissions.
        guard recordsHistory else { return }
        for (firing, time) in submitted {
            effects.append(.history(.fired(firing, time: time, readKeys: readKeys(firing.rule), ifAbsent: false)))
        }
    }

    /// Notes how far a firing got, and retires it once its last action reported. The ledger is
    /// keyed by firing id and action index, and the count is the one the firing had when it fired,
    /// so a reload that changes the rule's actions neither retires it early nor keeps it forever.
    private mutating func record(_ result: ActionResult, into effects: inout [DaemonEffect]) {
        if recordsHistory {
            // A delivery the outbox dropped at a limit may be older than every firing the history
            // still holds: then its own entry says so, rather than nothing.
            let orphan = HistoryEntry.outboxDrop(result, time: wallNow.rfc3339)
            effects.append(.history(.result(result, otherwise: orphan)))
        }
        guard let id = result.firingID, let firing = inflight[id] else { return }
        let actionCount =
            firing.actionCount ?? engine.index(ofRule: result.rule).map { engine.rules[$0].actions.count } ?? 0
        if result.index >= actionCount - 1 {
            inflight.retire(id)
        } else {
            inflight.advance(id, to: result.index + 1)
        }
    }

    /// Records each edge the engine dropped since the last call (`cooldown`, `once_per`), with the
    /// facts the rule reads as they are now; the engine's other trace events are let go.
    private mutating func recordDrops(into effects: inout [DaemonEffect]) {
        let trace = engine.takeTrace()
        guard recordsHistory else { return }
        for event in trace {
            guard case .dropped(let reason) = event.kind else { continue }
            let entry = HistoryEntry.dropped(
                event, reason: reason, id: "\(processToken)-drop-\(nextDropNumber)",
                time: wallTime(of: event.at).rfc3339, until: event.until.map { wallTime(of: $0).rfc3339 },
                facts: engine.facts, readKeys: readKeys(event.rule))
            nextDropNumber += 1
            effects.append(.history(.dropped(entry)))
        }
    }

    /// The facts a rule reads; for a `places.NAME`, its proof and reason too, so the history
    /// says why a place was only claimed.
    package func readKeys(_ rule: String) -> [FactKey] {
        let keys = engine.index(ofRule: rule).map { engine.rules[$0].condition.readKeys } ?? []
        return keys.flatMap { key -> [FactKey] in
            guard key.namespace == "places", key.rawValue.split(separator: ".").count == 2 else { return [key] }
            let name = String(key.rawValue.dropFirst("places.".count))
            return [key, .placeProof(name), .placeReason(name)]
        }
    }

    // MARK: - Time

    /// Arms the earliest `for:` or `time:` deadline or observer restart when it changed; none when
    /// nothing is pending, so an idle daemon never wakes up.
    private mutating func armDeadline(into effects: inout [DaemonEffect]) {
        let deadline = [engine.nextDeadline, supervision.nextRestart].compactMap { $0 }.min()
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        effects.append(.armDeadline(deadline))
    }

    /// The wall time of an engine instant.
    package func wallTime(of instant: Instant) -> WallTime {
        wallNow + (instant - now)
    }

    /// The engine instant of a saved wall-clock time; nil when it is not a number or further than
    /// twice `DurationSyntax.maximum` from now (no saved deadline can be, unless the file is bad).
    package func instant(ofWall seconds: Double) -> Instant? {
        let offset = seconds - wallNow.secondsSince1970
        let limit = DurationSyntax.seconds(DurationSyntax.maximum) * 2
        guard offset.isFinite, abs(offset) <= limit else { return nil }
        return now + .nanoseconds(Int64(offset * 1e9))
    }

    package static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
