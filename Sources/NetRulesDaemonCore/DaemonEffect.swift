import NetRulesCore

/// What `DaemonCore` asks the world to do, in order. The daemon performs each one; a test reads them.
package enum DaemonEffect {
    /// Hand a firing to the action runner (after the effects that recorded it); `resumed` when a
    /// previous process recorded it (logged as resumed already), else it is logged once its actions
    /// started.
    case submit(Firing, wallTime: String, resumed: Bool)
    /// Append one line to the state journal (one write(2), before the firing's actions run).
    case appendJournal(JournalDelta)
    /// Replace `state.json` with this state, then empty the journal.
    case writeSnapshot(PersistedState)
    /// Rename the unusable `state.json` aside, saying why.
    case setAsideStateFile(reason: String)
    /// Facts changed: watchers, the portal probe and the webhook online gate hear of it by key.
    case factsChanged([Engine.Step.Change])
    /// Call back with `DaemonEvent.deadline` at this instant; nil: nothing is pending.
    case armDeadline(Instant?)
    /// Run the observers this rule set needs (start the new, stop the unneeded, keep the rest).
    case configureObservers(RuleSet)
    /// Start this observer again (it ended, and its back-off passed), if the rules still run it.
    case restartObserver(identity: String)
    /// Stop every observer.
    case stopObservers
    /// Wait for running actions (at most the shutdown grace), then report `DaemonEvent.drained`.
    case drainRunner
    /// Stop running actions now (processes get SIGTERM, then SIGKILL): asked twice to stop.
    case stopRunningActions
    /// Read and validate the rule files off the loop (telling systemd `RELOADING=1`), then report
    /// `DaemonEvent.reloaded` or `DaemonEvent.reloadFailed`.
    case loadRules
    /// Answer the control client waiting with this ticket.
    case answerReload(ReloadTicket, ReloadOutcome)
    /// Tell systemd (`READY=1`, `STOPPING=1`, `STATUS=…`).
    case notify(String)
    /// Record in `netrules history`.
    case history(HistoryRecord)
    /// The rules paused now changed (a command, a reload, the start): the fleet republishes the
    /// state of each rule's switch.
    case pausesChanged(Set<String>)
    /// The daemon is done: nothing else follows.
    case finished

    /// What goes to the firing history.
    package enum HistoryRecord {
        /// A firing handed to the runner, its entry rendered once its actions started (rendering
        /// every action is not work to do between an event and its action); `ifAbsent` for a
        /// firing resumed after a restart, whose entry the history may still have.
        case fired(Firing, time: String, readKeys: [FactKey], ifAbsent: Bool)
        /// An edge the engine dropped (`cooldown`, `once_per`).
        case dropped(HistoryEntry)
        /// An action's result, for the entry of its firing (by id, or by webhook delivery); when the
        /// history holds no such entry, `otherwise` is recorded instead, if any.
        case result(ActionResult, otherwise: HistoryEntry?)
    }

    /// Whether this is a `submit`.
    package var isSubmission: Bool { if case .submit = self { true } else { false } }
}
