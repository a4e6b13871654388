import NetRulesActions
import NetRulesCore

/// What happens to the daemon, as `DaemonCore` learns of it, in the order it happens.
enum DaemonEvent {
    /// The rules loaded at start and what a previous run left behind.
    case start(DaemonStart)
    /// An observer reported (`from` its identity, nil for a source the core does not supervise);
    /// its `completeNamespaces` are already on the update.
    case facts(FactUpdate, from: String? = nil)
    /// The proofs of place `place` concluded `outcome` in proof round `round` (`PlaceProber`).
    case proof(place: String, round: UInt64, outcome: ProofOutcome)
    /// The deadline last armed (`DaemonEffect.armDeadline`) passed.
    case deadline
    /// A reload read and validated new rules.
    case reloaded(RuleSet)
    /// A reload found errors (already logged where they were found): the running rules stay.
    case reloadFailed
    /// An action reported.
    case actionResult(ActionResult)
    /// An observer's task ended on its own (not cancelled), after running for `ranFor`: its facts
    /// become unknown and it starts again after a back-off (`ObserverSupervision`).
    case observerEnded(identity: String, name: String, error: String?, ranFor: Duration)
    /// The rules no longer need this observer and the daemon stopped it: its facts become unknown.
    case observerRetired(identity: String, name: String)
    /// SIGTERM, SIGINT: stop observing, let running actions finish (`DaemonEffect.drainRunner`).
    case shutdown
    /// The runner finished or gave up on its actions after `shutdown`.
    case drained
    /// A `DaemonEffect.appendJournal` could not be written.
    case journalAppendFailed
    /// A `DaemonEffect.writeSnapshot` could not be written.
    case snapshotFailed
}

/// What the daemon starts from.
struct DaemonStart {
    var ruleSet: RuleSet
    /// `state.json` with the journal's lines applied; nil when there was none (or it was set aside).
    var restored: PersistedState?
    /// Whether the state journal is open: changes are appended to it, else `state.json` is rewritten.
    var journalOpen: Bool
    /// The local clock for `time:` and `once_per:`.
    var localClock: LocalClock

    init(ruleSet: RuleSet, restored: PersistedState?, journalOpen: Bool, localClock: LocalClock) {
        self.ruleSet = ruleSet
        self.restored = restored
        self.journalOpen = journalOpen
        self.localClock = localClock
    }
}
