import NetRulesActions
import NetRulesCore
import NetRulesDaemonCore

extension HistoryEntry {
    /// The entry of a firing the daemon hands to the runner: every action pending.
    /// - Parameters:
    ///   - readKeys: the facts the rule's condition reads, in the rule's order.
    ///   - time: the firing's wall time, RFC 3339.
    static func fired(_ firing: Firing, id: String, time: String, readKeys: [FactKey]) -> HistoryEntry {
        let actions = firing.actions.map { spec in
            let preview = ActionPreview.render(spec, of: firing, wallTime: time, withEnvironment: false)
            // The summary reads `KIND: TEXT`; the entry keeps the kind apart.
            var rendered = Substring(preview.summary)
            if rendered.hasPrefix(preview.kind + ": ") { rendered = rendered.dropFirst(preview.kind.count + 2) }
            return Action(type: spec.kind, rendered: bounded(String(rendered)))
        }
        return HistoryEntry(
            id: id, time: time, rule: firing.rule, edge: firing.edge, facts: facts(readKeys, in: firing.facts),
            actions: actions)
    }
}
