import NetRulesCore

/// What happens to the daemon, as `DaemonCore` learns of it, in the order it happens.
///
/// The one event vocabulary: every source (observers, the timer, signals, the rule-file watcher,
/// the control socket, the runner, the state files) puts these on the daemon's one stream, and
/// the core decides what each means.
package enum DaemonEvent: Sendable {
    /// The rules loaded at start and what a previous run left behind.
    case start(DaemonStart)
    /// An observer reported (`from` its identity, nil for a source the core does not supervise);
    /// its `completeNamespaces` are already on the update.
    case facts(FactUpdate, from: String? = nil)
    /// Several updates of one observer, in order, as one event: what a plugin printed in one
    /// read. The core handles them as that many `facts` events, with one journal line after them
    /// (and one before any firing's actions, as always); the daemon's stream carries one event.
    case factUpdates([FactUpdate], from: String? = nil)
    /// The proofs of place `place` concluded `outcome` in proof round `round` (`PlaceProber`).
    case proof(place: String, round: UInt64, outcome: ProofOutcome)
    /// The deadline last armed (`DaemonEffect.armDeadline`) passed.
    case deadline
    /// A command (`by`: `MQTT`, from `<prefix>/rule/<level>/set`) pauses `rule` (`paused`) or
    /// resumes it: a paused rule's firings are not run (`RulePause`). A rule the core does not
    /// run, or a rule set without `mqtt: commands: true`, ignores it.
    case pause(rule: String, paused: Bool, by: String)
    /// Someone asked for the rules to be read again: SIGHUP or a changed rule file (no ticket), or
    /// a control client waiting for the outcome (`DaemonEffect.answerReload` with its ticket).
    case reloadRequested(ReloadTicket?)
    /// The `DaemonEffect.loadRules` asked for read and validated new rules; `report` holds the
    /// warnings.
    case reloaded(RuleSet, report: LoadReport = LoadReport())
    /// The `DaemonEffect.loadRules` asked for found errors (already logged where they were found):
    /// the running rules stay; `report` says what was wrong.
    case reloadFailed(report: LoadReport = LoadReport())
    /// An action reported.
    case actionResult(ActionResult)
    /// An observer's task ended on its own (not cancelled), after running for `ranFor`: its facts
    /// become unknown and it starts again after a back-off (`ObserverSupervision`); `owns` are the
    /// facts it is the source of (`Observer.ownedKeys`), reported or not.
    case observerEnded(identity: String, name: String, error: String?, ranFor: Duration, owns: Set<FactKey> = [])
    /// The rules no longer need this observer and the daemon stopped it: its facts become unknown.
    case observerRetired(identity: String, name: String)
    /// SIGTERM, SIGINT: stop observing, let running actions finish (`DaemonEffect.drainRunner`);
    /// asked again while they finish, stop them at once (`DaemonEffect.stopRunningActions`).
    case shutdown
    /// The runner finished or gave up on its actions after `shutdown`.
    case drained
    /// A `DaemonEffect.appendJournal` could not be written.
    case journalAppendFailed
    /// A `DaemonEffect.writeSnapshot` could not be written.
    case snapshotFailed
}

/// What reading the rule files found: the diagnostics rendered as `check` prints them, the same as
/// values (for `reload --json`), and the files refused for their ownership or mode; for a reload
/// that fails, each file's error count (those not rendered included) and why the files could not
/// be read (`FailedReload`).
package struct LoadReport: Sendable {
    package var text = ""
    package var diagnostics: [Diagnostic] = []
    package var refused: [String] = []
    package var errorsByFile: [String: Int] = [:]
    package var readError: String?

    package init(
        text: String = "", diagnostics: [Diagnostic] = [], refused: [String] = [], errorsByFile: [String: Int] = [:],
        readError: String? = nil
    ) {
        self.text = text
        self.diagnostics = diagnostics
        self.refused = refused
        self.errorsByFile = errorsByFile
        self.readError = readError
    }
}

/// Names a control client waiting for a reload's outcome (`DaemonEvent.reloadRequested`).
package typealias ReloadTicket = Int

/// What the daemon starts from.
package struct DaemonStart: Sendable {
    package var ruleSet: RuleSet
    /// `state.json` with the journal's lines applied; nil when there was none (or it was set aside).
    package var restored: PersistedState?
    /// Whether the state journal is open: changes are appended to it, else `state.json` is rewritten.
    package var journalOpen: Bool
    /// The local clock for `time:` and `once_per:`.
    package var localClock: LocalClock
    /// The kernel's boot id now (nil where it cannot be read): a state saved in another boot
    /// keeps only its windows.
    package var bootID: String?

    package init(
        ruleSet: RuleSet, restored: PersistedState?, journalOpen: Bool, localClock: LocalClock, bootID: String? = nil
    ) {
        self.ruleSet = ruleSet
        self.restored = restored
        self.journalOpen = journalOpen
        self.localClock = localClock
        self.bootID = bootID
    }
}
