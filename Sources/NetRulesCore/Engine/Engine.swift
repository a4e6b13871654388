/// The rule engine: a deterministic state machine from fact updates and time to firings.
///
/// It holds the fact store and each rule's state, and returns what to do; it never runs an
/// action, reads a clock or waits. Edges are computed between known truth values: the first
/// known `true` fires `enter`, the first known `false` fires nothing, then `false→true` is
/// `enter` and `true→false` is `exit`; passing through unknown fires nothing. `for:` holds an
/// edge until the condition has stayed so for the duration (a change back, or to unknown,
/// cancels the hold); `cooldown:` drops a rule's firings for a while after one.
///
/// Rules are indexed by the fact keys they read, so an update re-evaluates only the rules
/// reading a changed key. Not thread-safe: confine an engine to one task or actor.
public struct Engine: Sendable {
    /// The current facts.
    public private(set) var facts = FactStore()
    /// The loaded rules, in file order.
    public private(set) var rules: [Rule] = []
    /// Each rule's state, parallel to `rules`.
    public private(set) var states: [RuleState] = []
    /// Changes whenever what must survive a restart changes (a rule's confirmed truth, hold or
    /// cooldown, or the rule set), so the daemon writes its state file only then and not after
    /// every fact update. Not bumped by `current`, which a restart forgets anyway.
    public private(set) var durableStateVersion: UInt64 = 0

    /// The local clock for `time:` and `once_per:` (UTC from the epoch unless the caller sets one).
    public private(set) var clock = LocalClock.utc
    /// Whether to record `trace` (for `simulate --trace`).
    public var tracing = false
    /// Holds started and cancelled and firings dropped, while `tracing`; see `takeTrace()`.
    public private(set) var trace: [TraceEvent] = []

    /// `places:`, and the facts derived from them (`places.NAME`, `place`).
    private var placeDerivation = PlaceDerivation()
    /// The rules' conditions, apart from `rules` so the hot path touches nothing else.
    private var conditions: [any Condition] = []
    /// Every `time:` window of the loaded rules, for the next calendar boundary.
    private var timeWindows: [TimeCondition] = []
    /// When `clock.local` must move next; nil when no rule has a `time:` window.
    private var calendarDeadline: Instant?
    /// Whether `clock.local` must be set at the next update or tick (new rules, a new clock).
    private var clockStale = false
    private var rulesByKey: [FactKey: [Int]] = [:]
    /// Each rule's index by name (the first, should names repeat), so a lookup per firing costs O(1).
    private var indexByName: [String: Int] = [:]
    private var holdDeadlines: [Int: Instant] = [:]
    private var visitMarks: [UInt32] = []
    private var visitGeneration: UInt32 = 0

    /// Creates an engine for `rules` and `places`, every fact unknown.
    public init(rules: [Rule], places: [PlaceDefinition] = []) {
        placeDerivation = PlaceDerivation(places: places)
        load(rules, keeping: [:])
    }

    /// The places whose `places.NAME` the engine derives, in file order.
    public var places: [PlaceDefinition] { placeDerivation.places }

    /// The current round of place `name`'s proofs: it moves on whenever their outcome goes stale
    /// (the network changed), and `recordProof` accepts an outcome only for the current round.
    public func proofRound(ofPlace name: String) -> UInt64? {
        placeDerivation.index(of: name).map { placeDerivation.rounds[$0] }
    }

    /// Records what place `name`'s proofs concluded in `round`, at `now`: `places.NAME.proof`
    /// becomes `passed` or `failed` (with `places.NAME.reason`), and the place `here` or
    /// `claimed`. An outcome for another round (the network changed since it started), or for a
    /// place whose condition does not hold, is dropped: the step is empty.
    public mutating func recordProof(_ outcome: ProofOutcome, place name: String, round: UInt64, at now: Instant)
        -> Step
    {
        guard let index = placeDerivation.index(of: name), placeDerivation.rounds[index] == round,
            facts[.placeProof(name)].isKnown
        else { return step(FactUpdate(), at: now) }
        var update = FactUpdate()
        switch outcome {
        case .passed:
            update[.placeProof(name)] = .value(.string(ProofState.passed.rawValue))
            update[.placeReason(name)] = .absent
        case .failed(let reason):
            update[.placeProof(name)] = .value(.string(ProofState.failed.rawValue))
            update[.placeReason(name)] = .value(.string(reason))
        }
        return step(update, at: now)
    }

    /// The earliest pending deadline (a `for:` hold, or a `time:` window's boundary): when the
    /// caller must call `tick(at:)` next.
    public var nextDeadline: Instant? {
        [holdDeadlines.values.min(), calendarDeadline].compactMap { $0 }.min()
    }

    /// The earliest pending `for:` deadline alone (`simulate` runs on until none is left).
    public var nextHoldDeadline: Instant? { holdDeadlines.values.min() }

    /// Sets the local clock; `time:` windows are evaluated against it from the next update or tick.
    public mutating func setClock(_ clock: LocalClock) {
        self.clock = clock
        clockStale = !timeWindows.isEmpty
    }

    /// The trace recorded since the last call.
    public mutating func takeTrace() -> [TraceEvent] {
        defer { trace = [] }
        return trace
    }

    /// The index of the rule called `name`.
    public func index(ofRule name: String) -> Int? {
        indexByName[name]
    }

    /// Applies a partial fact update at `now` and returns the firings, in rule order.
    ///
    /// Holds due at or before `now` complete first (they fire at their deadline).
    public mutating func apply(_ update: FactUpdate, at now: Instant) -> [Firing] {
        step(update, at: now).firings
    }

    /// Applies a partial fact update at `now` and returns the firings, in rule order, with the
    /// facts the update changed (so a caller need not diff the whole store to learn them).
    ///
    /// Holds due at or before `now` complete first (they fire at their deadline).
    public mutating func step(_ update: FactUpdate, at now: Instant) -> Step {
        var firings = advance(to: now)
        var update = update
        for namespace in update.completeNamespaces {
            // Keys rules read in a namespace the observer reported whole, but that it did not
            // name, are known absent (an interface that does not exist), not unknown.
            for key in rulesByKey.keys where key.namespace == namespace && update.changes[key] == nil {
                if !facts[key].isKnown { update.changes[key] = .absent }
            }
        }
        let changed = applyDeriving(update)
        guard !changed.isEmpty else { return Step(firings: firings, changes: []) }
        for index in affectedRules(by: changed) {
            evaluate(index, at: now, into: &firings)
        }
        let changes = changed.sorted { $0.key < $1.key }.map {
            Step.Change(key: $0.key, old: $0.old, new: facts[$0.key])
        }
        return Step(firings: firings, changes: changes)
    }

    /// What one update did: the firings, and each fact it changed, by key.
    public struct Step: Sendable {
        /// A fact whose state the update changed.
        public struct Change: Hashable, Sendable {
            /// The fact that changed.
            public var key: FactKey
            /// Its state before the update; `unknown` for a fact never reported.
            public var old: FactState
            /// Its state after the update.
            public var new: FactState

            /// Creates a change record.
            public init(key: FactKey, old: FactState, new: FactState) {
                self.key = key
                self.old = old
                self.new = new
            }
        }

        /// The firings, in rule order.
        public var firings: [Firing]
        /// The facts the update changed, sorted by key.
        public var changes: [Change]
    }

    /// Advances time to `now` and returns the firings of holds that completed.
    public mutating func tick(at now: Instant) -> [Firing] {
        advance(to: now)
    }

    /// Evaluates every rule against the current facts, as on start-up.
    public mutating func evaluateAll(at now: Instant) -> [Firing] {
        var firings = advance(to: now)
        for index in rules.indices {
            evaluate(index, at: now, into: &firings)
        }
        return firings
    }

    /// Swaps in a new rule set. A rule keeps its state by name: whole while its condition is the
    /// same (`identity`), so an edit of its description, actions or `for:` causes no spurious
    /// `enter` and resets no window; with a new condition it keeps its windows and confirmed truth,
    /// drops a pending hold and evaluates the new condition (an edge fires only where the new
    /// condition's truth differs from the confirmed one). Then the new and changed rules are
    /// evaluated. `lastReload` says what was kept.
    ///
    /// With `places`, the places are replaced too: a place whose name and fingerprint are
    /// unchanged keeps its proofs' outcome; the others' go stale (`pending`). Places no longer
    /// defined become unknown.
    public mutating func replaceRules(_ newRules: [Rule], places: [PlaceDefinition]? = nil, at now: Instant)
        -> [Firing]
    {
        var kept: [String: (identity: String, state: RuleState)] = [:]
        for (rule, state) in zip(rules, states) where !rule.fingerprint.isEmpty && kept[rule.name] == nil {
            kept[rule.name] = (rule.identity, state)
        }
        var changedFacts: [FactKey] = []
        if let places {
            let old = placeDerivation
            placeDerivation = PlaceDerivation(places: places)
            let stale = placeDerivation.keepRounds(of: old)
            var gone = FactUpdate()
            let names = Set(places.map(\.name))
            for place in old.places where !names.contains(place.name) {
                for key in [FactKey.placeStatus(place.name), .placeProof(place.name), .placeReason(place.name)] {
                    gone[key] = .unknown
                }
            }
            changedFacts = facts.apply(gone)
            changedFacts += facts.apply(placeDerivation.derive(after: [], stale: stale, facts: facts))
            let current: FactState =
                placeDerivation.places.isEmpty
                ? .unknown : PlaceDerivation.currentPlace(placeDerivation.places) { facts[$0] }
            changedFacts += facts.apply(FactUpdate([.place: current]))
        }
        let changedConditions = load(newRules, keeping: kept)
        var firings: [Firing] = []
        let affected = Set(affectedRules(by: changedFacts)).union(changedConditions)
        for index in rules.indices
        where affected.contains(index) || (states[index].current == .unknown && states[index].confirmed == nil) {
            evaluate(index, at: now, into: &firings)
        }
        return firings
    }

    /// What the last `replaceRules` kept: the rules whose whole state it kept, and the names of
    /// those whose condition changed (windows and truth kept, the condition evaluated anew).
    public private(set) var lastReload: (kept: Int, conditionChanged: [String]) = (0, [])

    /// Restores persisted states by rule name (after a restart), each with the identity it was
    /// saved with (nil: a file from before identities, compared by `fingerprint`): a rule whose
    /// condition changed meanwhile keeps its windows and confirmed truth but not a pending hold.
    /// After a new boot (`forgetTruth`) only the windows are kept: every rule starts as on a
    /// first run, so a level rule (a VPN, a mount) makes the world match the state again, while a
    /// `once_per: day` check-in still happens once a day.
    ///
    /// Restored holds await confirmation: they complete only once the condition is known to
    /// still hold (at their original deadline, or at once if it passed meanwhile).
    public mutating func restore(
        _ saved: [String: (fingerprint: String, identity: String?, state: RuleState)], forgetTruth: Bool = false
    ) {
        for index in rules.indices {
            guard let entry = saved[rules[index].name] else { continue }
            var state = entry.state
            let sameCondition =
                entry.fingerprint == rules[index].fingerprint || entry.identity == rules[index].identity
            if forgetTruth {
                state = RuleState(cooldownUntil: state.cooldownUntil, oncePerUntil: state.oncePerUntil)
            } else if !sameCondition {
                state.hold = nil
            }
            state.current = .unknown
            state.hold?.awaitsConfirmation = true
            states[index] = state
            durableStateVersion &+= 1
            holdDeadlines[index] = nil
        }
    }

    // MARK: - Internals

    /// Loads `newRules` with the states `kept` by name (see `replaceRules`); returns the indices
    /// of the rules whose condition changed.
    @discardableResult
    private mutating func load(
        _ newRules: [Rule], keeping kept: [String: (identity: String, state: RuleState)]
    ) -> Set<Int> {
        rules = newRules
        conditions = newRules.map(\.condition)
        var changedConditions: Set<Int> = []
        var keptWhole = 0
        states = newRules.enumerated().map { index, rule in
            guard let (identity, old) = kept[rule.name] else { return RuleState() }
            if identity == rule.identity {
                keptWhole += 1
                return old
            }
            changedConditions.insert(index)
            return RuleState(
                confirmed: old.confirmed, cooldownUntil: old.cooldownUntil, oncePerUntil: old.oncePerUntil)
        }
        lastReload = (keptWhole, changedConditions.sorted().map { newRules[$0].name })
        durableStateVersion &+= 1
        rulesByKey = [:]
        holdDeadlines = [:]
        indexByName = Dictionary(newRules.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (index, rule) in newRules.enumerated() {
            for key in Set(rule.condition.readKeys) {
                rulesByKey[key, default: []].append(index)
            }
            if let hold = states[index].hold, !hold.awaitsConfirmation { holdDeadlines[index] = hold.deadline }
        }
        visitMarks = Array(repeating: 0, count: newRules.count)
        visitGeneration = 0
        timeWindows = newRules.flatMap { Self.timeWindows(in: $0.condition) }
        calendarDeadline = nil
        clockStale = !timeWindows.isEmpty
        return changedConditions
    }

    private static func timeWindows(in condition: any Condition) -> [TimeCondition] {
        if let window = condition as? TimeCondition { return [window] }
        if let defaulted = condition as? UnknownDefaultCondition { return timeWindows(in: defaulted.inner) }
        return condition.children.flatMap(timeWindows(in:))
    }

    /// Moves time to `now`: holds complete and `time:` windows open or close in time order.
    private mutating func advance(to now: Instant) -> [Firing] {
        var firings: [Firing] = []
        if clockStale { moveClock(to: now, into: &firings) }
        while true {
            let hold = holdDeadlines.min { ($0.value, $0.key) < ($1.value, $1.key) }
            if let boundary = calendarDeadline, boundary <= now, hold.map({ boundary <= $0.value }) ?? true {
                moveClock(to: boundary, into: &firings)
                continue
            }
            guard let (index, deadline) = hold, deadline <= now else { break }
            guard let pending = states[index].hold else {
                holdDeadlines[index] = nil
                continue
            }
            cancelHold(index, traced: false, at: deadline)
            commit(index, edge: pending.edge, at: deadline, into: &firings)
        }
        return firings
    }

    /// Sets `clock.local` to the local time at `time`, re-evaluates the rules with a `time:`
    /// window, and schedules the next boundary.
    private mutating func moveClock(to time: Instant, into firings: inout [Firing]) {
        clockStale = false
        let local = clock.local(at: time)
        let changed = applyDeriving(FactUpdate([.localClock: .value(.number(Double(local.seconds)))]))
        var next = timeWindows.map { clock.instant(ofLocal: $0.nextBoundary(after: local)) }.min()
        // A clock that maps a boundary to the past (a DST change, a bad offset) must still move on.
        if let n = next, n <= time { next = time + .seconds(1) }
        calendarDeadline = next
        for index in affectedRules(by: changed) {
            evaluate(index, at: time, into: &firings)
        }
    }

    /// Applies `update`, then the facts derived from it (`places.NAME`, `place`), and returns every
    /// key that changed with its state before the update.
    private mutating func applyDeriving(_ update: FactUpdate) -> [(key: FactKey, old: FactState)] {
        var changed = facts.applyKeepingOld(update)
        guard !changed.isEmpty, !placeDerivation.places.isEmpty else { return changed }
        let derived = placeDerivation.derive(after: changed.map(\.key), named: update.changes, facts: facts)
        // A derived key the update did not name had, before the derivation, its state before the update.
        for change in facts.applyKeepingOld(derived) where update.changes[change.key] == nil { changed.append(change) }
        return changed
    }

    /// The rules reading any of the changed keys, each once, in rule order.
    private mutating func affectedRules(by changed: [(key: FactKey, old: FactState)]) -> [Int] {
        changed.count == 1 ? rulesByKey[changed[0].key] ?? [] : affectedRules(by: changed.map(\.key))
    }

    /// The rules reading any of `keys`, each once, in rule order.
    private mutating func affectedRules(by keys: [FactKey]) -> [Int] {
        if keys.count == 1 { return rulesByKey[keys[0]] ?? [] }
        visitGeneration &+= 1
        if visitGeneration == 0 {
            visitMarks = Array(repeating: 0, count: rules.count)
            visitGeneration = 1
        }
        var result: [Int] = []
        for key in keys {
            for index in rulesByKey[key] ?? [] where visitMarks[index] != visitGeneration {
                visitMarks[index] = visitGeneration
                result.append(index)
            }
        }
        result.sort()
        return result
    }

    private mutating func evaluate(_ index: Int, at now: Instant, into firings: inout [Firing]) {
        let truth = conditions[index].evaluate(facts)
        states[index].current = truth
        if let hold = states[index].hold, hold.awaitsConfirmation {
            guard let value = truth.known else { return }
            guard value == hold.target else {
                cancelHold(index, at: now)
                evaluate(index, at: now, into: &firings)
                return
            }
            states[index].hold?.awaitsConfirmation = false
            durableStateVersion &+= 1
            if hold.deadline <= now {
                cancelHold(index, traced: false, at: now)
                commit(index, edge: hold.edge, at: now, into: &firings)
            } else {
                holdDeadlines[index] = hold.deadline
            }
            return
        }
        guard let value = truth.known else {
            cancelHold(index, at: now)
            return
        }
        let confirmed = states[index].confirmed
        if confirmed == value {
            cancelHold(index, at: now)
            return
        }
        if confirmed == nil && !value {
            // The first known value is false: nothing changed from the user's point of view.
            cancelHold(index, at: now)
            states[index].confirmed = false
            durableStateVersion &+= 1
            return
        }
        let hold = rules[index].hold
        if hold == .zero {
            commit(index, edge: value ? .enter : .exit, at: now, into: &firings)
        } else if states[index].hold?.target != value {
            let deadline = now + hold
            if states[index].hold != nil { cancelHold(index, at: now) }
            states[index].hold = RuleState.Hold(target: value, deadline: deadline)
            durableStateVersion &+= 1
            holdDeadlines[index] = deadline
            record(index, value ? .enter : .exit, at: now, .held(until: deadline))
        }
    }

    /// Ends a pending hold; `traced` says whether it was cancelled (rather than completed).
    private mutating func cancelHold(_ index: Int, traced: Bool = true, at now: Instant) {
        guard let hold = states[index].hold else { return }
        states[index].hold = nil
        durableStateVersion &+= 1
        holdDeadlines[index] = nil
        if traced { record(index, hold.edge, at: now, .cancelled) }
    }

    private mutating func record(
        _ index: Int, _ edge: Edge, at time: Instant, _ kind: TraceEvent.Kind, until: Instant? = nil
    ) {
        guard tracing, rules[index].edges.contains(edge) else { return }
        trace.append(TraceEvent(rule: rules[index].name, edge: edge, at: time, kind: kind, until: until))
    }

    private mutating func commit(_ index: Int, edge: Edge, at time: Instant, into firings: inout [Firing]) {
        states[index].confirmed = edge == .enter
        durableStateVersion &+= 1
        guard rules[index].edges.contains(edge) else { return }
        if let until = states[index].cooldownUntil, time < until {
            record(index, edge, at: time, .dropped(reason: "cooldown"), until: until)
            return
        }
        if let until = states[index].oncePerUntil[edge], time < until {
            record(index, edge, at: time, .dropped(reason: "once_per"), until: until)
            return
        }
        let cooldown = rules[index].cooldown
        if cooldown > .zero { states[index].cooldownUntil = time + cooldown }
        if let period = rules[index].oncePer {
            let local = clock.local(at: time)
            let end = period == .day ? local.startOfNextDay : local.startOfNextWeek
            states[index].oncePerUntil[edge] = clock.instant(ofLocal: end)
        }
        firings.append(
            Firing(rule: rules[index].name, edge: edge, at: time, facts: facts, actions: rules[index].actions))
    }
}
