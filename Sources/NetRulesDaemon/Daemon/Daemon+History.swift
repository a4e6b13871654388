import FoundationEssentials
import NetRulesActions
import NetRulesCore

extension Daemon {
    /// Records each edge the engine dropped since the last call (`cooldown`, `once_per`), with the
    /// facts the rule reads as they are now; the engine's other trace events are let go.
    func recordDrops() {
        let trace = engine.takeTrace()
        guard history != nil else { return }
        for event in trace {
            guard case .dropped(let reason) = event.kind else { continue }
            let readKeys = engine.index(ofRule: event.rule).map { engine.rules[$0].condition.readKeys } ?? []
            let entry = HistoryEntry.dropped(
                event, reason: reason, id: "\(processToken)-drop-\(nextDropNumber)",
                time: WallClock.rfc3339(wallTime(of: event.at)),
                until: event.until.map { WallClock.rfc3339(wallTime(of: $0)) }, facts: engine.facts,
                readKeys: readKeys)
            nextDropNumber += 1
            history?.record(entry)
        }
    }

    /// Records a firing handed to the runner, its actions rendered (secrets as `<secret>`).
    func recordInHistory(_ firing: Firing, time: String) {
        guard history != nil, let id = firing.id else { return }
        let readKeys = engine.index(ofRule: firing.rule).map { engine.rules[$0].condition.readKeys } ?? []
        history?.record(HistoryEntry.fired(firing, id: id, time: time, readKeys: readKeys))
    }

    /// Records an action's result on its firing's entry. A webhook delivered in the background
    /// (after being queued, or resumed after a restart) carries no firing id: its idempotency key
    /// finds the firing.
    func recordInHistory(_ result: ActionResult) {
        guard let history else { return }
        guard let id = result.firingID ?? result.idempotencyKey.flatMap({ history.id(ofDelivery: $0) }) else { return }
        self.history?.update(id: id) { $0.apply(result) }
    }

    /// A firing resumed after a restart whose entry the history lost (or never had) gets one, so
    /// its results have somewhere to go.
    func recordResumed(_ firing: Firing, time: String) {
        guard let history, let id = firing.id, history.entry(id: id) == nil else { return }
        recordInHistory(firing, time: time)
    }
}
