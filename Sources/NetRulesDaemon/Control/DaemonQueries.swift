import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemonCore

/// What a client of the control socket may ask the running daemon.
///
/// The daemon implements it; the control server only translates requests and answers to JSON
/// lines. Every method is a read but `reload`, which re-reads the same rule files SIGHUP does
/// (the socket admits only root and the daemon's own user).
package protocol DaemonQueries: Sendable {
    /// The current facts.
    func facts() async -> FactStore
    /// The rule's condition tree with each node's current value, or nil when there is no such rule.
    func explain(rule: String) async -> Explanation?
    /// The loaded rules' names, in file order.
    func ruleNames() async -> [String]
    /// The rules paused by a command (`RulePause`), in file order.
    func pausedRules() async -> [PausedRule]
    /// Every fact key the loaded rules can read (`RuleSet.factKeysRead`), so `status` and `facts`
    /// can list the ones nobody has reported yet.
    func factKeysRead() async -> Set<FactKey>
    /// Fact changes from now on, until the stream's consumer stops.
    func factChanges() async -> AsyncStream<FactChange>
    /// Re-reads the rule files, as SIGHUP does, and says what happened.
    func reloadOnRequest() async -> ReloadOutcome
    /// The engine's current time (the `now` it was last given), so `explain` can show a `for:` hold's
    /// deadline as time remaining; nil when the daemon does not say.
    func engineTime() async -> Instant?
    /// The firings the query selects, oldest first; nil when this daemon keeps no history.
    func history(_ query: HistoryQuery) async -> [HistoryEntry]?
    /// What the webhook outbox holds, for `status`; nil when the daemon does not say.
    func outbox() async -> OutboxSize?
    /// The MQTT connection (`mqtt:`), for `status`; nil without one.
    func mqtt() async -> FleetService.Status?
    /// The observers that ended and have not reported since they started again, for `status`.
    func failedObservers() async -> [FailedObserver]
    /// The last reload's errors while it failed and no reload has loaded since, for `status`,
    /// `rules` and `doctor`; nil when the rules running are the files' latest that loaded.
    func failedReload() async -> FailedReload?
    /// Where each fact comes from as this daemon runs: its rule set, this kernel's nl80211 and
    /// NetworkManager as its observer sees it; nil when the daemon does not say (`facts` then
    /// names the sources of the rule files on this machine).
    func factSources() async -> FactSources?
}

/// An observer that stopped and has not reported since: what `status` and `status --json` show.
package struct FailedObserver: Sendable, Hashable {
    package var name: String
    /// Why it stopped; nil when it simply ended.
    package var error: String?
    /// When it first stopped in this series (RFC 3339), and how many times since.
    package var since: String
    package var attempts: Int
    /// When it starts again (RFC 3339); nil when it already did and has not reported yet.
    package var nextAttempt: String?
    /// The facts that wait for it, and the rules that cannot become true until they are known.
    package var facts: [String]
    package var rules: [String]

    package init(
        name: String, error: String?, since: String, attempts: Int, nextAttempt: String?, facts: [String],
        rules: [String]
    ) {
        self.name = name
        self.error = error
        self.since = since
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.facts = facts
        self.rules = rules
    }
}

extension DaemonQueries {
    /// A daemon that cannot reload on request says so.
    package func reloadOnRequest() async -> ReloadOutcome {
        ReloadOutcome(reloaded: false, rules: 0, rendered: "this daemon does not reload on request\n")
    }

    /// No engine time: `explain` then shows a hold without its remaining time.
    package func engineTime() async -> Instant? { nil }

    /// Nothing paused: no command reaches this daemon.
    package func pausedRules() async -> [PausedRule] { [] }

    /// No history: `history` says so.
    package func history(_ query: HistoryQuery) async -> [HistoryEntry]? { nil }

    /// No rule set to ask: `status` lists only the facts reported.
    package func factKeysRead() async -> Set<FactKey> { [] }

    /// No outbox: `status` shows none.
    package func outbox() async -> OutboxSize? { nil }

    /// Nothing supervised: no failed observers.
    package func failedObservers() async -> [FailedObserver] { [] }
    /// No reloads: none failed.
    package func failedReload() async -> FailedReload? { nil }
    /// No sources: `facts` names those of the rule files.
    package func factSources() async -> FactSources? { nil }
    /// No MQTT client: `status` shows none.
    package func mqtt() async -> FleetService.Status? { nil }
}

/// One fact's change, as `watch` shows it.
package struct FactChange: Sendable {
    package var key: FactKey
    package var old: FactState
    package var new: FactState
    /// Wall-clock time, RFC 3339.
    package var at: String

    package init(key: FactKey, old: FactState, new: FactState, at: String) {
        self.key = key
        self.old = old
        self.new = new
        self.at = at
    }
}
