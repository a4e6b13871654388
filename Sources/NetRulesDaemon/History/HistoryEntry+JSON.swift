import NetRulesCore
import NetRulesDaemonCore

extension HistoryEntry {
    /// `{"version":1,"id":…,"time":…,"rule":…,"edge":…,"facts":{…},"unknown":[…],"actions":[…]}`,
    /// plus `"dropped":{"reason":…,"until":…}` for a dropped edge and `"coalesced":N` for a firing
    /// that ran while N later edges of its rule coalesced.
    ///
    /// `facts` holds the known facts (`null` when known absent) and `unknown` the keys nobody had
    /// reported, as `explain --json` does. Each action is `{"type","rendered","outcome":{…}}`; the
    /// outcome has `status` and, when they apply, `exit_status`, `signal`, `http_status`,
    /// `duration_ms`, `output`, `retries`, `error`, `account` (`user:`, `owner:`) and `group`
    /// (`owner:`); a webhook also has `idempotency_key`.
    package var document: JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", .number(Double(ControlDocuments.version))), ("id", .string(id)), ("time", .string(time)),
            ("rule", .string(rule)), ("edge", .string(edge.rawValue)),
            ("facts", .object(facts.compactMap { fact in fact.value.map { (fact.key, $0) } })),
            ("unknown", .array(facts.filter { $0.value == nil }.map { .string($0.key) })),
            ("actions", .array(actions.map(\.document))),
        ]
        if let dropped {
            var drop: [(String, JSONValue)] = [("reason", .string(dropped.reason))]
            if let until = dropped.until { drop.append(("until", .string(until))) }
            members.append(("dropped", .object(drop)))
        }
        if let coalesced { members.append(("coalesced", .number(Double(coalesced)))) }
        return .object(members)
    }

    /// Reads an entry back from its document; nil when it is not one (a line of a damaged file).
    package init?(document: JSONValue) {
        guard document.member("version")?.numberValue == Double(ControlDocuments.version),
            let id = document.member("id")?.stringValue, let time = document.member("time")?.stringValue,
            let rule = document.member("rule")?.stringValue,
            let edge = document.member("edge")?.stringValue.flatMap(Edge.init(rawValue:)),
            case .object(let known)? = document.member("facts"),
            case .array(let actionDocuments)? = document.member("actions")
        else { return nil }
        var facts = known.map { Fact(key: $0.0, value: $0.1) }
        if case .array(let unknown)? = document.member("unknown") {
            facts += unknown.compactMap { $0.stringValue.map { Fact(key: $0, value: nil) } }
        }
        var actions: [Action] = []
        for action in actionDocuments {
            guard let parsed = Action(document: action) else { return nil }
            actions.append(parsed)
        }
        var dropped: Drop?
        if let drop = document.member("dropped") {
            guard let reason = drop.member("reason")?.stringValue else { return nil }
            dropped = Drop(reason: reason, until: drop.member("until")?.stringValue)
        }
        self.init(id: id, time: time, rule: rule, edge: edge, facts: facts, actions: actions, dropped: dropped)
        if let n = document.member("coalesced")?.numberValue, n.isFinite, n >= 1, n < 1e12 { coalesced = Int(n) }
    }
}

extension HistoryEntry.Action {
    var document: JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string(type)), ("rendered", .string(rendered)), ("outcome", outcome.document),
        ]
        if let idempotencyKey { members.append(("idempotency_key", .string(idempotencyKey))) }
        return .object(members)
    }

    init?(document: JSONValue) {
        guard let type = document.member("type")?.stringValue,
            let rendered = document.member("rendered")?.stringValue,
            let outcome = document.member("outcome").flatMap(HistoryEntry.Outcome.init(document:))
        else { return nil }
        self.init(
            type: type, rendered: rendered, outcome: outcome,
            idempotencyKey: document.member("idempotency_key")?.stringValue)
    }
}

extension HistoryEntry.Outcome {
    var document: JSONValue {
        var members: [(String, JSONValue)] = [("status", .string(status))]
        if let exitStatus { members.append(("exit_status", .number(Double(exitStatus)))) }
        if let signal { members.append(("signal", .number(Double(signal)))) }
        if let httpStatus { members.append(("http_status", .number(Double(httpStatus)))) }
        if let durationMilliseconds { members.append(("duration_ms", .number(durationMilliseconds))) }
        if let retries { members.append(("retries", .number(Double(retries)))) }
        if let output { members.append(("output", .string(output))) }
        if let error { members.append(("error", .string(error))) }
        if let account { members.append(("account", .string(account))) }
        if let group { members.append(("group", .string(group))) }
        return .object(members)
    }

    init?(document: JSONValue) {
        guard let status = document.member("status")?.stringValue else { return nil }
        self.init(status: status)
        func integer(_ key: String) -> Int? {
            guard let n = document.member(key)?.numberValue, n.isFinite, abs(n) < 1e9 else { return nil }
            return Int(n)
        }
        exitStatus = integer("exit_status")
        signal = integer("signal")
        httpStatus = integer("http_status")
        retries = integer("retries")
        if let n = document.member("duration_ms")?.numberValue, n.isFinite, n >= 0 { durationMilliseconds = n }
        output = document.member("output")?.stringValue
        error = document.member("error")?.stringValue
        account = document.member("account")?.stringValue
        group = document.member("group")?.stringValue
    }
}
