import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemonCore

/// The JSON documents of the control protocol, built in one place so the daemon's answers and the
/// command line's own output without a daemon (`status`, `watch`, `explain`) are the same
/// documents, rendered once by NetRulesCLI's `StatusDocument`, `WatchDocument` and `ExplainDocument`.
///
/// Every document carries `"version": 1`. `null` always means *known absent*; an unknown fact is
/// left out of `facts` (as in `status --json`, and as `watch --json` leaves out `old`/`new`).
package enum ControlDocuments {
    /// The protocol version every request and answer carries.
    package static let version = 1

    /// `{"version":1,"facts":{KEY: VALUE…}}`: the known facts, keys sorted; a daemon adds
    /// `"unknown":[KEY…]`, the keys its rules can read that nobody has reported (sorted),
    /// `"outbox":{"pending":N,"pending_bytes":N,"failed":N}`, when some failed,
    /// `"observers":{"failed":[{"name":…,"error":…,"since":…,"attempts":N,"next_attempt":…,"facts":[…],"rules":[…]}]}`,
    /// when its last reload failed, `"failed_reload":{…}` (`failedReload(_:)`), with `mqtt:`, `"mqtt":{"broker":…,"client_id":…,"state":…,"since":RFC3339}`, and when a
    /// command paused rules, `"paused":[{"rule":…,"by":"MQTT","since":RFC3339}…]` in file order. The
    /// answer to `facts` adds `"sources":{KEY: SOURCE…}`: each key the daemon's rules and observers
    /// can report (`FactSources.keys`) and each known one, keys sorted, named as `facts` names its source.
    package static func status(
        _ facts: FactStore, outbox: OutboxSize? = nil, reads: Set<FactKey>? = nil,
        failedObservers: [FailedObserver]? = nil, failedReload: FailedReload? = nil, mqtt: FleetService.Status? = nil,
        paused: [PausedRule] = [], sources: FactSources? = nil
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", .number(Double(version))),
            ("facts", .object(facts.known.map { ($0.key.rawValue, JSONValue($0.state)) })),
        ]
        if let reads {
            let unknown = reads.filter { !facts[$0].isKnown }.map(\.rawValue).sorted()
            members.append(("unknown", .array(unknown.map(JSONValue.string))))
        }
        if let outbox { members.append(("outbox", Self.outbox(outbox))) }
        // Only when some failed: a healthy daemon's document stays as it was.
        if let failedObservers, !failedObservers.isEmpty {
            members.append(("observers", .object([("failed", .array(failedObservers.map(Self.failedObserver)))])))
        }
        if let failedReload { members.append(("failed_reload", Self.failedReload(failedReload))) }
        if let mqtt {
            members.append(
                (
                    "mqtt",
                    .object([
                        ("broker", .string(mqtt.broker)), ("client_id", .string(mqtt.clientID)),
                        ("state", .string(mqtt.state)), ("since", .string(mqtt.since)),
                    ])
                ))
        }
        // Only when some are: the document of a daemon without commands stays as it was.
        if !paused.isEmpty {
            let items = paused.map { pause -> JSONValue in
                .object([("rule", .string(pause.rule)), ("by", .string(pause.by)), ("since", .string(pause.since))])
            }
            members.append(("paused", .array(items)))
        }
        if let sources {
            let keys = sources.keys.union(facts.known.map(\.key).filter { !$0.isEngineInternal })
            let named = keys.sorted().map { ($0.rawValue, JSONValue.string(sources.source(of: $0).label)) }
            members.append(("sources", .object(named)))
        }
        return .object(members)
    }

    /// The failed observers of a `status` document's `observers` member; empty when there are none.
    /// Their texts are as a terminal may show them: escaped by `TerminalText` (`JSONValue.plainText`).
    package static func failedObservers(from observers: JSONValue?) -> [FailedObserver] {
        guard case .array(let items)? = observers?.member("failed") else { return [] }
        return items.map { item in
            func text(_ key: String) -> String? {
                guard let value = item.member(key), value != .null else { return nil }
                return value.plainText
            }
            func list(_ key: String) -> [String] {
                guard case .array(let values)? = item.member(key) else { return [] }
                return values.map(\.plainText)
            }
            return FailedObserver(
                name: text("name") ?? "?", error: text("error"), since: text("since") ?? "",
                attempts: item.member("attempts")?.numberValue.map { Int($0) } ?? 0, nextAttempt: text("next_attempt"),
                facts: list("facts"), rules: list("rules"))
        }
    }

    /// One failed observer, keys sorted.
    package static func failedObserver(_ failure: FailedObserver) -> JSONValue {
        .object([
            ("attempts", .number(Double(failure.attempts))), ("error", failure.error.map(JSONValue.string) ?? .null),
            ("facts", .array(failure.facts.map(JSONValue.string))), ("name", .string(failure.name)),
            ("next_attempt", failure.nextAttempt.map(JSONValue.string) ?? .null),
            ("rules", .array(failure.rules.map(JSONValue.string))), ("since", .string(failure.since)),
        ])
    }

    /// `{"pending":N,"pending_bytes":N,"failed":N}`.
    package static func outbox(_ size: OutboxSize) -> JSONValue {
        .object([
            ("pending", .number(Double(size.pending))), ("pending_bytes", .number(Double(size.pendingBytes))),
            ("failed", .number(Double(size.failed))),
        ])
    }

    /// `{"version":1,"reloaded":true,"rules":N,"diagnostics":[…],"refused":[…],"rendered":"…"}`: what a
    /// reload did. `diagnostics` and `refused` are `check --json`'s; `rendered` is the text a person
    /// reads (diagnostics with their source lines, or why nothing was reloaded).
    package static func reload(_ outcome: ReloadOutcome) -> JSONValue {
        .object([
            ("version", .number(Double(version))), ("reloaded", .bool(outcome.reloaded)),
            ("rules", .number(Double(outcome.rules))), ("diagnostics", .array(outcome.diagnostics.map(diagnostic))),
            ("refused", .array(outcome.refused.map(JSONValue.string))), ("rendered", .string(outcome.rendered)),
        ])
    }

    /// One diagnostic as `check --json` and `reload --json` print it:
    /// `{"severity":…,"file":…,"line":…,"column":…,"message":…,"keyPath":…,"hint":…}` (the last two
    /// only when there is one).
    package static func diagnostic(_ d: Diagnostic) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("severity", .string(d.severity.rawValue)), ("file", .string(d.file)),
            ("line", .number(Double(d.mark.line))), ("column", .number(Double(d.mark.column))),
            ("message", .string(d.message)),
        ]
        if let k = d.keyPath, !k.isEmpty { members.append(("keyPath", .string(k))) }
        if let h = d.hint { members.append(("hint", .string(h))) }
        return .object(members)
    }

    /// `{"version":1,"error":"…"}`.
    package static func error(_ message: String) -> JSONValue {
        .object([("version", .number(Double(version))), ("error", .string(message))])
    }

    /// The message of an error document, or nil when `document` is not one.
    package static func errorMessage(in document: JSONValue) -> String? {
        document.member("error")?.stringValue
    }

    /// One `watch` line, exactly as `netrules watch --json` prints it without a daemon: `version`,
    /// `key`, `old`, `new`, `at`, with `old`/`new` left out when unknown and `null` when known absent.
    package static func change(_ change: FactChange) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", .number(Double(version))), ("key", .string(change.key.rawValue)),
        ]
        if change.old.isKnown { members.append(("old", JSONValue(change.old))) }
        if change.new.isKnown { members.append(("new", JSONValue(change.new))) }
        members.append(("at", .string(change.at)))
        return .object(members)
    }

    /// The answer to `explain`: the rule's truth, its condition tree, the facts it read and its state.
    ///
    /// `facts` holds the known facts the condition read (`null` when absent) and `unknown` lists
    /// the keys it read that nobody has reported, so a script can tell "no SSID" from "no Wi-Fi
    /// observer yet". In `state`: `hold` is a pending `for:` wait, with `deadline_in_seconds` (the
    /// time left, `null` when `now` is not known) and `deadline` (RFC 3339, local time);
    /// `cooldown` says whether firings are being dropped by `cooldown:`, until `cooldown_until`
    /// (`cooldown_in_seconds` from now); `once_per` lists, per edge, `until` when (`in_seconds`)
    /// `once_per:` drops that edge's firings.
    /// - Parameters:
    ///   - explanation: what `Engine.explain(rule:)` returned.
    ///   - now: the engine's current time, for the hold's and cooldown's remaining time.
    ///   - paused: the rule's pause (`RulePause`), if a command paused it.
    package static func explain(_ explanation: Explanation, now: Instant?, paused: PausedRule? = nil) -> JSONValue {
        func tree(_ node: Explanation.Node) -> JSONValue {
            .object([
                ("condition", .string(node.description)), ("truth", .string(node.truth.description)),
                ("children", .array(node.children.map(tree))),
            ])
        }
        let known = explanation.facts.filter { $0.state.isKnown }
        let unknown = explanation.facts.filter { !$0.state.isKnown }
        var document: [(String, JSONValue)] = [
            ("version", .number(Double(version))),
            ("rule", .string(explanation.rule)),
            ("truth", .string(explanation.root.truth.description)),
            ("tree", tree(explanation.root)),
            ("facts", .object(known.map { ($0.key.rawValue, factValue($0, clock: explanation.clock)) })),
            ("unknown", .array(unknown.map { .string($0.key.rawValue) })),
            ("state", state(explanation, now: now, paused: paused)),
        ]
        // Only for a rule that reads a place, so the documents of the others stay as they were.
        if !explanation.places.isEmpty { document.append(("places", .array(explanation.places.map(place)))) }
        return .object(document)
    }

    /// An `explain` answer's `state`: `confirmed`, the pending `for:` `hold`, `cooldown` (with
    /// `cooldown_until` and `cooldown_in_seconds` while it drops firings) and `once_per`; `rules`
    /// answers carry the same object for each rule. A rule a command paused has `paused`:
    /// `{"by":"MQTT","since":RFC3339}` (only then).
    package static func state(_ explanation: Explanation, now: Instant?, paused: PausedRule? = nil) -> JSONValue {
        let state = explanation.state
        let clock = explanation.clock
        func left(_ until: Instant) -> JSONValue {
            now.map { .seconds(max(0, DurationSyntax.seconds(until - $0))) } ?? .null
        }
        var hold: JSONValue = .null
        if let h = state.hold {
            hold = .object([
                ("edge", .string(h.edge.rawValue)), ("deadline_in_seconds", left(h.deadline)),
                ("deadline", .string(clock.rfc3339(at: h.deadline))),
            ])
        }
        var members: [(String, JSONValue)] = [
            ("confirmed", state.confirmed.map(JSONValue.bool) ?? .null), ("hold", hold),
        ]
        if let until = state.cooldownUntil, now.map({ $0 < until }) ?? true {
            members += [
                ("cooldown", .bool(true)), ("cooldown_until", .string(clock.rfc3339(at: until))),
                ("cooldown_in_seconds", left(until)),
            ]
        } else {
            members.append(("cooldown", .bool(false)))
        }
        let oncePer = state.oncePerUntil.filter { edge in now.map { $0 < edge.value } ?? true }
            .sorted { $0.key.rawValue < $1.key.rawValue }
        let dropping = oncePer.map { edge, until -> JSONValue in
            .object([
                ("edge", .string(edge.rawValue)), ("until", .string(clock.rfc3339(at: until))),
                ("in_seconds", left(until)),
            ])
        }
        members.append(("once_per", .array(dropping)))
        if let paused {
            members.append(("paused", .object([("by", .string(paused.by)), ("since", .string(paused.since))])))
        }
        return .object(members)
    }

    /// A fact as `explain` shows it. `clock.local`, the engine's local time for `time:` windows
    /// (seconds since 1970 local), is shown as the local time it is, RFC 3339 with its offset: the
    /// number is meaningless to a reader, and hiding it would hide what a `time:` window compared.
    private static func factValue(_ fact: (key: FactKey, state: FactState), clock: LocalClock) -> JSONValue {
        guard fact.key == .localClock, case .value(.number(let seconds)) = fact.state, seconds.isFinite,
            abs(seconds) < 1e15
        else { return JSONValue(fact.state) }
        let local = Int64(seconds)
        return .string(LocalTime(seconds: local).rfc3339(offset: clock.utcOffset(clock.unixTime(ofLocal: local))))
    }

    /// One place of an `explain` answer; a fact still unknown is the string `unknown`.
    private static func place(_ place: Explanation.Place) -> JSONValue {
        func state(_ state: FactState) -> JSONValue { state.isKnown ? JSONValue(state) : .string("unknown") }
        return .object([
            ("name", .string(place.name)), ("when", .string(place.condition)),
            ("condition_truth", .string(place.conditionTruth.description)),
            ("proofs", .array(place.proofs.map(JSONValue.string))), ("status", state(place.status)),
            ("proof", state(place.proof)), ("reason", state(place.reason)),
        ])
    }
}
