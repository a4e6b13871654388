import NetRulesCore

extension DaemonCore {
    /// Records the persisted state when it changed: one journal line holding what changed while
    /// the journal is open (it survives a SIGKILL at any instant once written), else a snapshot.
    package mutating func persist(into effects: inout [DaemonEffect]) {
        // Encoding the whole state after every fact update would cost more the more rules hold
        // state; only a change to what survives a restart records anything.
        let version = (engine: engine.durableStateVersion, inflight: inflight.version, paused: pausedVersion)
        if let last = persistedVersion, last == version { return }
        let rulesChanged = persistedVersion?.engine != version.engine
        let pausesChanged = persistedVersion?.paused != version.paused
        guard journalOpen, var last = lastSaved else {
            snapshot(into: &effects)
            return
        }
        persistedVersion = version
        // What changed, at the cost of what changed: the rules only when the engine's durable
        // state moved (an action's result moves only the in-flight list), the firings by id.
        var rules: (old: [String: PersistedState.SavedRule], new: [String: PersistedState.SavedRule])?
        if rulesChanged {
            rules = (last.rules, currentRules())
            last.rules = rules!.new
        }
        var pauses: [String: PersistedState.SavedPause]?
        if pausesChanged {
            pauses = savedPauses()
            last.paused = pauses!
        }
        let line = JournalDelta(
            nextFiring: nextFiringNumber, rules: rules, inflight: inflight.takeChanges(), paused: pauses)
        lastSaved = last
        journalLines += 1
        effects.append(.appendJournal(line))
    }

    /// The whole state, to replace `state.json` and empty the journal: at start, when the journal
    /// passes `compactionLines`, at shutdown, and whenever a journal line could not be written.
    package mutating func snapshot(into effects: inout [DaemonEffect]) {
        let saved = currentState()
        persistedVersion = (engine.durableStateVersion, inflight.version, pausedVersion)
        lastSaved = saved
        inflight.markRecorded()
        journalLines = 0
        effects.append(.writeSnapshot(saved))
    }

    /// Every rule state worth keeping and the firings in flight.
    package func currentState() -> PersistedState {
        var saved = PersistedState()
        saved.nextFiringNumber = nextFiringNumber
        saved.inflight = inflight.all
        saved.rules = currentRules()
        saved.paused = savedPauses()
        saved.bootID = bootID
        return saved
    }

    /// The paused rules as the state file keeps them.
    package func savedPauses() -> [String: PersistedState.SavedPause] {
        paused.mapValues { PersistedState.SavedPause(by: $0.by, since: $0.since.secondsSince1970) }
    }

    /// Every rule state worth keeping, by rule name, with deadlines as wall-clock seconds.
    package func currentRules() -> [String: PersistedState.SavedRule] {
        var rules: [String: PersistedState.SavedRule] = [:]
        for (rule, state) in zip(engine.rules, engine.states)
        where state.confirmed != nil || state.hold != nil || state.cooldownUntil != nil || !state.oncePerUntil.isEmpty {
            rules[rule.name] = PersistedState.SavedRule(
                fingerprint: rule.fingerprint, confirmed: state.confirmed,
                cooldownUntil: state.cooldownUntil.map { wallTime(of: $0).secondsSince1970 },
                hold: state.hold.map { ($0.target, wallTime(of: $0.deadline).secondsSince1970) },
                oncePerUntil: Dictionary(
                    uniqueKeysWithValues: state.oncePerUntil.map {
                        ($0.key.rawValue, wallTime(of: $0.value).secondsSince1970)
                    }), identity: rule.identity)
        }
        return rules
    }
}
