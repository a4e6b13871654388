import FoundationEssentials
import Glibc
import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesLinux
import NetRulesSystem

extension Daemon {
    // MARK: - Rules

    /// Loads and fully validates the rule files; nil (after logging why) when they cannot be used.
    /// `unreadable` tells a file that could not be read (exit 1) from invalid content (exit 65);
    /// `rendered` is what was wrong, as `check` prints it.
    func load() -> (result: LoadResult?, unreadable: Bool, rendered: String) {
        let result: LoadResult
        do {
            result = try RuleFiles.load(options.ruleFiles, environment: options.environment)
        } catch {
            logger.error("\(error)")
            return (nil, true, "\(error)\n")
        }
        // One record per diagnostic, on one line (`file:line:column: error: message`), as a log needs.
        for diagnostic in result.diagnostics {
            let text = diagnostic.description + (diagnostic.hint.map { " (hint: \($0))" } ?? "")
            if diagnostic.severity == .error { logger.error(text) } else { logger.warning(text) }
        }
        for (file, count) in result.omitted.sorted(by: { $0.key < $1.key }) {
            logger.error("\(file): and \(count) more problems not logged")
        }
        let distrusted = RuleFiles.trustProblems(result, files: (try? RuleFiles.expand(options.ruleFiles)) ?? []) {
            options.trustProblem($0, $1)
        }
        for problem in distrusted { logger.error(problem) }
        let rendered = result.renderedDiagnostics() + distrusted.map { "error: \($0)\n" }.joined()
        guard !result.hasErrors, distrusted.isEmpty else { return (nil, false, rendered) }
        return (result, false, rendered)
    }

    /// Re-reads the rules and swaps them in atomically, or keeps the running ones.
    @discardableResult
    func reloadRules() async -> ReloadOutcome {
        options.notify("RELOADING=1\nMONOTONIC_USEC=\(sys_monotonicMicroseconds())")
        defer { options.notify("READY=1\nSTATUS=watching with \(ruleSet.rules.count) rules") }
        let (result, _, rendered) = load()
        guard let loaded = result else {
            logger.error("reload failed: keeping the \(ruleSet.rules.count) rules already running")
            return ReloadOutcome(reloaded: false, rules: ruleSet.rules.count, diagnostics: rendered)
        }
        ruleSet = loaded.ruleSet
        let firings = engine.replaceRules(ruleSet.rules, at: now())
        startObservers()
        logger.notice("reloaded: \(ruleSet.rules.count) rule\(ruleSet.rules.count == 1 ? "" : "s")")
        await dispatch(firings)
        return ReloadOutcome(reloaded: true, rules: ruleSet.rules.count, diagnostics: rendered)
    }

    // MARK: - Observers

    /// Starts the observers the rule set needs and stops those it no longer needs; an observer
    /// whose configuration did not change keeps running (and keeps its facts).
    func startObservers() {
        updateSignalSampling()
        let plan = ObserverPlan(
            ruleSet: ruleSet, signalSampling: signalSampling, logger: logger.child("netrules.observers"))
        let wanted = Set(plan.entries.map(\.identity))
        for (identity, task) in observers where !wanted.contains(identity) {
            task.cancel()
            observers[identity] = nil
        }
        if let entry = plan.entries.first(where: { $0.portal != nil }) {
            // A probe whose settings did not change keeps running: keep the handle to it.
            if observers[entry.identity] == nil { portal = entry.portal }
        } else {
            portal = nil
        }
        for entry in plan.entries where observers[entry.identity] == nil {
            let observer = entry.observer
            let identity = entry.identity
            let sink = eventSink
            observers[identity] = Task(executorPreference: TaskPlacement.preferred) {
                let (stream, continuation) = AsyncStream.makeStream(of: FactUpdate.self, bufferingPolicy: .unbounded)
                let forward = Task(executorPreference: TaskPlacement.preferred) {
                    for await update in stream { sink.yield(.facts(source: observer.name, update: update)) }
                }
                var failure: String?
                do {
                    try await observer.run(reporting: continuation)
                } catch is CancellationError {
                } catch {
                    failure = "\(error)"
                }
                continuation.finish()
                await forward.value
                if !Task.isCancelled { sink.yield(.observerEnded(identity: identity, error: failure)) }
            }
        }
    }

    /// Samples `signal` while a rule or a `watch` client reads it, and not at all otherwise.
    func updateSignalSampling() {
        signalSampling.set(ruleSet.signalSamplingInterval(watching: !watchers.isEmpty))
    }

    func stopObservers() async {
        let tasks = Array(observers.values)
        observers = [:]
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Waits for running actions, at most `shutdownGrace`; then stops them (processes get SIGTERM
    /// then SIGKILL, webhook retries stay in the outbox, blocked writes are abandoned). Firings not
    /// finished stay in flight and resume at the next start.
    func drainRunner() async {
        let runner = self.runner
        let grace = options.shutdownGrace
        if await withTimeLimit(grace, { await runner.drain() }) != nil { return }
        logger.warning(
            "shutdown: actions still running after \(DurationSyntax.format(grace)): stopping them; "
                + "unfinished firings resume at the next start")
        await runner.stop()
        if await withTimeLimit(.seconds(5), { await runner.drain() }) == nil {
            logger.warning("shutdown: some actions did not stop within 5s; exiting anyway")
        }
    }

    // MARK: - Persistence

    var stateFile: String { options.paths.stateDirectory + "/" + PersistedState.fileName }

    var journalFile: String { options.paths.stateDirectory + "/" + StateJournal.fileName }

    /// Restores rule states and in-flight firings from the state file and the journal's lines
    /// after it, if there are any; returns how many lines the journal held.
    @discardableResult
    func restoreState() -> Int {
        var restored: PersistedState?
        if let data = FileManager.default.contents(atPath: stateFile) {
            let (decoded, problem) = PersistedState.decode(Array(data))
            if decoded == nil { setAsideStateFile(because: problem ?? "it cannot be read") }
            restored = decoded
        }
        var skipped = 0
        let lines = StateJournal.readLines(at: journalFile)
        for line in lines {
            guard let change = PersistedState.decode(line).state else {
                skipped += 1
                continue
            }
            restored = restored ?? PersistedState()
            restored!.apply(change)
        }
        if skipped > 0 { logger.warning("skipped \(skipped) damaged line(s) of the state journal '\(journalFile)'") }
        guard let saved = restored else { return lines.count }
        var states: [String: (fingerprint: String, state: RuleState)] = [:]
        for (name, rule) in saved.rules {
            // A saved time out of range (a corrupt file, or one written with other limits) would
            // make every start fail the same way: set the file aside instead of crash-looping.
            var hold: RuleState.Hold?
            var cooldown: Instant?
            if let saved = rule.hold {
                guard let deadline = instant(ofWall: saved.deadline) else {
                    setAsideStateFile(because: "rule '\(name)' has a saved hold deadline out of range")
                    return lines.count
                }
                hold = RuleState.Hold(target: saved.target, deadline: deadline)
            }
            if let saved = rule.cooldownUntil {
                guard let until = instant(ofWall: saved) else {
                    setAsideStateFile(because: "rule '\(name)' has a saved cooldown out of range")
                    return lines.count
                }
                cooldown = until
            }
            var oncePer: [Edge: Instant] = [:]
            for (edgeName, saved) in rule.oncePerUntil {
                guard let edge = Edge(rawValue: edgeName), let until = instant(ofWall: saved) else {
                    setAsideStateFile(because: "rule '\(name)' has a saved once_per time out of range")
                    return lines.count
                }
                oncePer[edge] = until
            }
            states[name] = (
                rule.fingerprint,
                RuleState(confirmed: rule.confirmed, hold: hold, cooldownUntil: cooldown, oncePerUntil: oncePer)
            )
        }
        engine.restore(states)
        inflight = InflightFirings(saved.inflight)
        nextFiringNumber = saved.nextFiringNumber
        logger.info("restored the state of \(states.count) rules and \(inflight.count) firings in flight")
        return lines.count
    }

    /// Renames an unusable state file to `state.json.bad-<unix time>` so the daemon starts from a
    /// fresh state (and the next start does not trip over it again); the old file stays for a human.
    func setAsideStateFile(because reason: String) {
        let aside = stateFile + ".bad-\(Int(startWall.timeIntervalSince1970))"
        if case .success = sys_rename(stateFile, aside) {
            logger.error(
                "the state file '\(stateFile)' is unusable (\(reason)); moved it to '\(aside)' and starting from a fresh state"
            )
        } else {
            logger.error(
                "the state file '\(stateFile)' is unusable (\(reason)) and could not be moved aside; ignoring it")
        }
    }

    /// Firings a previous process recorded but did not see through: submitted again with their
    /// original id, so a webhook already in the outbox is not sent twice.
    func resubmitInflight() async {
        let pending = inflight.all
        inflight = InflightFirings()
        for saved in pending {
            guard let index = engine.index(ofRule: saved.rule), engine.rules[index].fingerprint == saved.fingerprint
            else {
                logger.warning("dropping an in-flight firing of '\(saved.rule)': the rule changed or is gone")
                continue
            }
            var facts = FactStore()
            facts.apply(FactUpdate(Dictionary(saved.facts, uniquingKeysWith: { a, _ in a })))
            var firing = Firing(
                rule: saved.rule, edge: saved.edge, at: now(), facts: facts, actions: engine.rules[index].actions)
            firing.id = saved.id
            firing.firstAction = saved.nextAction
            inflight.append(saved)
            logger.notice(
                "resuming rule '\(saved.rule)' \(saved.edge) from before the restart"
                    + (saved.nextAction > 0 ? " at action \(saved.nextAction)" : ""))
            recordResumed(firing, time: saved.time)
            await runner.submit(firing, wallTime: saved.time)
        }
    }

    /// Records the persisted state when it changed: one appended journal line (what changed, one
    /// write(2)) while the journal is open, which survives a SIGKILL at any instant and is flushed
    /// to the disk by the journal's own thread; otherwise `state.json` is replaced atomically.
    func persist() {
        // Encoding the whole state after every fact update would cost more the more rules hold
        // state; only a change to what survives a restart writes.
        let version = (engine: engine.durableStateVersion, inflight: inflight.version)
        if let last = persistedVersion, last.engine == version.engine, last.inflight == version.inflight { return }
        let rulesChanged = persistedVersion?.engine != version.engine
        persistedVersion = version
        if let journal, var last = lastSaved {
            // What changed, at the cost of what changed: the rules only when the engine's durable
            // state moved (an action's result moves only the in-flight list), the firings by id.
            var rules: (old: [String: PersistedState.SavedRule], new: [String: PersistedState.SavedRule])?
            if rulesChanged {
                rules = (last.rules, currentRules())
                last.rules = rules!.new
            }
            let line = PersistedState.journalLine(
                nextFiring: nextFiringNumber, rules: rules, inflight: inflight.takeChanges())
            do {
                try journal.append(line.encoded())
                lastSaved = last
                return
            } catch {
                logger.error("cannot append to the state journal: \(error); rewriting state.json instead")
            }
        }
        writeStateFile(currentState(), sync: false)
    }

    /// Folds the journal into `state.json` (written and flushed to the disk) and empties it, when it
    /// has grown past `StateJournal.compactionLines` or when `force`d (at start and at shutdown).
    func compactJournal(force: Bool = false) {
        guard let journal, force || journal.lineCount >= StateJournal.compactionLines else { return }
        let saved = currentState()
        guard writeStateFile(saved, sync: true) else { return }
        do {
            try journal.truncate()
        } catch {
            logger.error("cannot empty the state journal: \(error)")
        }
    }

    /// Every rule state worth keeping and the firings in flight.
    func currentState() -> PersistedState {
        var saved = PersistedState()
        saved.nextFiringNumber = nextFiringNumber
        saved.inflight = inflight.all
        saved.rules = currentRules()
        return saved
    }

    /// Every rule state worth keeping, by rule name.
    func currentRules() -> [String: PersistedState.SavedRule] {
        var rules: [String: PersistedState.SavedRule] = [:]
        for (rule, state) in zip(engine.rules, engine.states)
        where state.confirmed != nil || state.hold != nil || state.cooldownUntil != nil || !state.oncePerUntil.isEmpty {
            rules[rule.name] = PersistedState.SavedRule(
                fingerprint: rule.fingerprint, confirmed: state.confirmed,
                cooldownUntil: state.cooldownUntil.map { wallTime(of: $0).timeIntervalSince1970 },
                hold: state.hold.map { ($0.target, wallTime(of: $0.deadline).timeIntervalSince1970) },
                oncePerUntil: Dictionary(
                    uniqueKeysWithValues: state.oncePerUntil.map {
                        ($0.key.rawValue, wallTime(of: $0.value).timeIntervalSince1970)
                    }))
        }
        return rules
    }

    /// Replaces `state.json` atomically; true when it was written.
    @discardableResult
    func writeStateFile(_ saved: PersistedState, sync: Bool) -> Bool {
        do {
            try DurableFile.replace(stateFile, with: saved.encoded(), mode: 0o600, sync: sync)
            lastSaved = saved
            inflight.markRecorded()
            return true
        } catch {
            persistedVersion = nil  // try again after the next event
            lastSaved = nil  // and write the whole state then
            logger.error("cannot persist the rule state: \(error)")
            return false
        }
    }
}
