import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore

/// A daemon stand-in for the control socket: a real engine over fixed rules and facts, and fact
/// changes the test publishes by hand.
actor FakeDaemonQueries: DaemonQueries {
    private var engine: Engine
    private let now: Instant?
    private var subscribers: [Int: AsyncStream<FactChange>.Continuation] = [:]
    private var nextSubscriber = 0
    private var subscriberWaiters: [CheckedContinuation<Void, Never>] = []
    private var goneWaiters: [CheckedContinuation<Void, Never>] = []
    private let keysRead: Set<FactKey>

    /// - Parameters:
    ///   - yaml: a rule file's text.
    ///   - facts: applied as one update at instant zero.
    ///   - now: what `engineTime()` reports.
    init(yaml: String, facts: [FactKey: FactState], now: Instant? = .zero) {
        let loaded = RuleLoader().load([RuleSource(file: "fake.yaml", bytes: Array(yaml.utf8))])
        precondition(!loaded.hasErrors, loaded.renderedDiagnostics())
        var engine = Engine(rules: loaded.ruleSet.rules, places: loaded.ruleSet.places)
        keysRead = loaded.ruleSet.factKeysRead
        _ = engine.apply(FactUpdate(facts), at: .zero)
        self.engine = engine
        self.now = now
    }

    /// A fake whose engine has lived through `updates` on `clock`, so rules hold, cool down and fire.
    /// - Parameters:
    ///   - yaml: a rule file's text.
    ///   - updates: fact updates in time order, each applied at its instant.
    ///   - clock: the engine's local clock.
    ///   - now: what `engineTime()` reports.
    init(yaml: String, updates: [(Instant, [FactKey: FactState])], clock: LocalClock, now: Instant) {
        let loaded = RuleLoader().load([RuleSource(file: "fake.yaml", bytes: Array(yaml.utf8))])
        precondition(!loaded.hasErrors, loaded.renderedDiagnostics())
        var engine = Engine(rules: loaded.ruleSet.rules, places: loaded.ruleSet.places)
        keysRead = loaded.ruleSet.factKeysRead
        engine.setClock(clock)
        for (at, facts) in updates { _ = engine.apply(FactUpdate(facts), at: at) }
        self.engine = engine
        self.now = now
    }

    func facts() -> FactStore { engine.facts }
    func explain(rule: String) -> Explanation? { engine.explain(rule: rule) }
    func ruleNames() -> [String] { engine.rules.map(\.name) }
    func factKeysRead() -> Set<FactKey> { keysRead }

    /// What `reloadOnRequest()` answers; nil: the protocol's default (this daemon does not reload).
    private var reloadOutcome: ReloadOutcome?

    func setReloadOutcome(_ outcome: ReloadOutcome?) { reloadOutcome = outcome }

    func reloadOnRequest() -> ReloadOutcome {
        reloadOutcome ?? ReloadOutcome(reloaded: false, rules: 0, rendered: "this daemon does not reload on request\n")
    }
    func engineTime() -> Instant? { now }

    /// What `history` answers with before the query selects; nil: a daemon without history.
    private var historyEntries: [HistoryEntry]?

    func setHistory(_ entries: [HistoryEntry]?) { historyEntries = entries }

    func history(_ query: HistoryQuery) -> [HistoryEntry]? {
        historyEntries.map { query.select($0, now: HistoryFixtures.now) }
    }

    /// What `pausedRules()` answers.
    private var paused: [PausedRule] = []

    func setPaused(_ rules: [PausedRule]) { paused = rules }

    func pausedRules() -> [PausedRule] { paused }

    /// What `outbox()` answers; nil: a daemon that does not say.
    private var outboxSize: OutboxSize?

    func setOutbox(_ size: OutboxSize?) { outboxSize = size }

    func outbox() -> OutboxSize? { outboxSize }

    /// What `failedReload()` answers; nil: the last reload loaded.
    private var reloadFailure: FailedReload?

    func setFailedReload(_ failure: FailedReload?) { reloadFailure = failure }

    func failedReload() -> FailedReload? { reloadFailure }

    /// What `factSources()` answers; nil: a daemon that does not say.
    private var sources: FactSources?

    func setFactSources(_ sources: FactSources?) { self.sources = sources }

    func factSources() -> FactSources? { sources }

    func factChanges() -> AsyncStream<FactChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: FactChange.self)
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        for waiter in subscriberWaiters { waiter.resume() }
        subscriberWaiters = []
        return stream
    }

    /// Sends a change to every `watch`.
    func publish(_ change: FactChange) {
        for continuation in subscribers.values { continuation.yield(change) }
    }

    /// Ends every `watch` stream, as a daemon shutting down does.
    func finishStreams() {
        for continuation in subscribers.values { continuation.finish() }
    }

    /// Returns once a `watch` has subscribed.
    func waitForSubscriber() async {
        if !subscribers.isEmpty { return }
        await withCheckedContinuation { subscriberWaiters.append($0) }
    }

    /// Returns once every `watch` has let go of its stream.
    func waitUntilNoSubscriber() async {
        if subscribers.isEmpty { return }
        await withCheckedContinuation { goneWaiters.append($0) }
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
        guard subscribers.isEmpty else { return }
        for waiter in goneWaiters { waiter.resume() }
        goneWaiters = []
    }
}
