import NetRulesCore
import NetRulesDaemonCore

extension ControlDocuments {
    /// Where a `rules` document's truths come from.
    package enum RulesSource: String, Sendable {
        /// The running daemon: each rule's truth and state now.
        case daemon
        /// The rule files, read as `check` reads them: every truth unknown, no state.
        case files
    }

    /// `{"version":1,"source":"daemon","rules":[{"name":…,"truth":…,"state":{…},"last_firing":{…}}…]}`:
    /// every loaded rule in file order, as `netrules rules --json` prints it; while the daemon's
    /// last reload failed, `"failed_reload":{…}` (`failedReload(_:)`) follows: the rules listed are
    /// the previous ones.
    ///
    /// `truth` is `true`, `false` or `unknown`; `state` is the object `explain` answers with (the
    /// pending `for:` hold, cooldown and `once_per` drops, each until when, and `paused` for a rule
    /// a command paused), `null` when read from the files; `last_firing` is `{"time":…,"edge":…}`
    /// of the newest firing the history keeps that ran (dropped edges do not count), `null` when
    /// none.
    /// - Parameters:
    ///   - explanations: each rule's `Engine.explain(rule:)`, in file order.
    ///   - now: the engine's current time, for the time left.
    ///   - history: the firings kept, oldest first.
    ///   - paused: the rules a command paused.
    ///   - failedReload: the reloads that failed since the rules last loaded.
    package static func rules(
        _ explanations: [Explanation], now: Instant?, history: [HistoryEntry], paused: [PausedRule] = [],
        failedReload: FailedReload? = nil
    ) -> JSONValue {
        let last = lastFirings(history)
        let pauses = Dictionary(paused.map { ($0.rule, $0) }, uniquingKeysWith: { first, _ in first })
        return rules(
            source: .daemon,
            explanations.map { explanation in
                rule(
                    explanation.rule, truth: explanation.root.truth.description,
                    state: state(explanation, now: now, paused: pauses[explanation.rule]), last: last[explanation.rule])
            }, failedReload: failedReload)
    }

    /// The `rules` document from the rule files, when no daemon answers: every truth `unknown`,
    /// every `state` `null`, the last firings from the history file.
    package static func rules(names: [String], history: [HistoryEntry]) -> JSONValue {
        let last = lastFirings(history)
        return rules(source: .files, names.map { rule($0, truth: "unknown", state: .null, last: last[$0]) })
    }

    /// The rule names of a `rules` document, in its order.
    package static func ruleNames(in document: JSONValue) -> [String] {
        guard case .array(let items)? = document.member("rules") else { return [] }
        return items.compactMap { $0.member("name")?.stringValue }
    }

    private static func rules(source: RulesSource, _ items: [JSONValue], failedReload: FailedReload? = nil)
        -> JSONValue
    {
        var members: [(String, JSONValue)] = [
            ("version", .number(Double(version))), ("source", .string(source.rawValue)), ("rules", .array(items)),
        ]
        // Only then: the document of a daemon whose rules loaded stays as it was.
        if let failedReload { members.append(("failed_reload", Self.failedReload(failedReload))) }
        return .object(members)
    }

    private static func rule(_ name: String, truth: String, state: JSONValue, last: HistoryEntry?) -> JSONValue {
        .object([
            ("name", .string(name)), ("truth", .string(truth)), ("state", state),
            (
                "last_firing",
                last.map { .object([("time", .string($0.time)), ("edge", .string($0.edge.rawValue))]) } ?? .null
            ),
        ])
    }

    /// Each rule's newest firing that was not dropped.
    private static func lastFirings(_ history: [HistoryEntry]) -> [String: HistoryEntry] {
        var last: [String: HistoryEntry] = [:]
        for entry in history where entry.dropped == nil { last[entry.rule] = entry }
        return last
    }
}
