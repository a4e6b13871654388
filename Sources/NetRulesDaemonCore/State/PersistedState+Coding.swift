import NetRulesCore

/// The one codec of the daemon's persisted state: `state.json` and each journal line are built as
/// a `JSONValue` and read back through `JSONValue.parse` and `JSONValue.Members`, with the same
/// key names in one place, so what is written is what is read. (NetRulesCore's `JSONValue`, not
/// Foundation's coders: this runs between an event and its action, where JSONSerialization cost
/// about 1.5 ms against ~0.1 ms; and a reading error names the key path, where a `DecodingError`
/// is a Swift debug dump.)
///
/// The document: `{"boot_id": ID, "inflight": [firing…], "journal_from": N, "next_firing": N, "paused": {name: {"by": "MQTT",
/// "since": SECONDS}}, "snapshots": [facts…], "removed": […], "retired": […], "rules": {name: rule}, "version": 1}`
/// — `removed` and `retired` only in journal lines, `boot_id` and `journal_from` only in `state.json`
/// (`PersistedState.journalFrom`), `snapshots` only when a firing is in flight, `paused` in
/// `state.json` only when a rule is paused and in a journal line only when the paused rules
/// changed (all of them then; a file from before commands has none, and loads as none paused). A fact value is `{"s": "Office"}`,
/// `{"x": "4fff"}` (bytes, hex), `{"n": -61}`, `{"b": true}` or `{"l": [...]}`; `null` is absent.
extension PersistedState {
    /// The state file's bytes; the same state always gives the same bytes (keys sorted, no
    /// timestamp), so an unchanged state is not rewritten.
    package func encoded() -> [UInt8] {
        Self.document(
            rules: rules, inflight: inflight, nextFiring: nextFiringNumber, journalFrom: journalFrom,
            paused: paused.isEmpty ? nil : paused, bootID: bootID
        ).compactBytes
    }

    /// Reads a state file (or the state part of a journal line).
    /// - Throws: `JSONValue.ShapeError` naming what is wrong and where.
    package init(decoding bytes: [UInt8]) throws(JSONValue.ShapeError) {
        try self.init(document: try Members(Self.parse(bytes)))
    }

    package typealias Members = JSONValue.Members

    package init(document: Members) throws(JSONValue.ShapeError) {
        guard try document.integer("version") == 1 else {
            throw JSONValue.ShapeError(path: "version", reason: "not a version 1 state file")
        }
        self.init()
        nextFiringNumber = try document.integer("next_firing") ?? 1
        journalFrom = try document.integer("journal_from")
        bootID = try document.string("boot_id")
        if let saved = try document.object("paused") {
            // A pause this netrules cannot read is left out (the rule runs), not the whole state.
            for (name, _) in saved.all {
                guard let pause = try? saved.object(name), let by = try? pause.string("by"),
                    let since = try? pause.number("since")
                else { continue }
                paused[name] = SavedPause(by: by, since: since)
            }
        }
        if let saved = try document.object("rules") {
            for (name, _) in saved.all {
                guard let rule = try saved.object(name) else { continue }
                rules[name] = try SavedRule(rule)
            }
        }
        var snapshots: [[(FactKey, FactState)]] = []
        for snapshot in try document.array("snapshots") {
            snapshots.append(try Self.facts(try Members(snapshot.value, path: snapshot.path)))
        }
        for item in try document.array("inflight") {
            let firing = try Members(item.value, path: item.path)
            // A firing this netrules cannot resume (an edge it does not know, a snapshot that is not
            // there) is left out, as before, rather than discarding the whole state with it.
            guard let edge = Edge(rawValue: try firing.requiredString("edge")) else { continue }
            // `facts_index` names a shared snapshot; a file from before snapshots has `facts` inline.
            let facts: [(FactKey, FactState)]
            if let index = try firing.integer("facts_index") {
                guard snapshots.indices.contains(index) else { continue }
                facts = snapshots[index]
            } else {
                facts = try firing.object("facts").map(Self.facts) ?? []
            }
            inflight.append(
                SavedFiring(
                    id: try firing.requiredString("id"), rule: try firing.requiredString("rule"),
                    fingerprint: try firing.requiredString("fingerprint"), edge: edge,
                    time: try firing.requiredString("time"), facts: facts, actionCount: try firing.integer("actions"),
                    nextAction: max(0, try firing.integer("next_action") ?? 0)))
        }
    }

    /// Parses `bytes` as one JSON document, a syntax error as a `ShapeError` of the document.
    package static func parse(_ bytes: [UInt8]) throws(JSONValue.ShapeError) -> JSONValue {
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw JSONValue.ShapeError(path: "", reason: "not JSON (\(error))")
        }
    }

    /// The document for a state (and, with `removed` and `retired`, for a journal line).
    package static func document(
        rules: [String: SavedRule], inflight: [SavedFiring], nextFiring: Int, journalFrom: Int? = nil,
        removed: [String] = [], retired: [String] = [], paused: [String: SavedPause]? = nil, bootID: String? = nil
    ) -> JSONValue {
        let ruleMembers: [(String, JSONValue)] = rules.keys.sorted().map { name in (name, rules[name]!.document) }
        // Firings of one update share one fact snapshot (all the facts known then, which with many
        // rules can be a thousand): each distinct snapshot is written once, in `snapshots`, and a
        // firing names it by index. 100 firings of one event wrote 2.3 MB before, 25 KB now.
        var snapshots: [JSONValue] = []
        var previous: [(FactKey, FactState)]?
        var indexes: [Int] = []
        for f in inflight {
            if let previous, previous.count == f.facts.count,
                zip(previous, f.facts).allSatisfy({ $0.0 == $1.0 && $0.1 == $1.1 })
            {
                indexes.append(snapshots.count - 1)
                continue
            }
            snapshots.append(.object(f.facts.sorted { $0.0 < $1.0 }.map { ($0.0.rawValue, json($0.1)) }))
            previous = f.facts
            indexes.append(snapshots.count - 1)
        }
        let firings: [JSONValue] = zip(inflight, indexes).map { f, index in
            .object([
                ("edge", .string(f.edge.rawValue)),
                ("facts_index", .number(Double(index))),
                ("actions", f.actionCount.map { .number(Double($0)) } ?? .null),
                ("fingerprint", .string(f.fingerprint)),
                ("id", .string(f.id)), ("next_action", .number(Double(f.nextAction))), ("rule", .string(f.rule)),
                ("time", .string(f.time)),
            ])
        }
        var members: [(String, JSONValue)] = []
        if let bootID { members.append(("boot_id", .string(bootID))) }
        members.append(("inflight", .array(firings)))
        if let journalFrom { members.append(("journal_from", .number(Double(journalFrom)))) }
        members.append(("next_firing", .number(Double(nextFiring))))
        if let paused {
            let saved: [(String, JSONValue)] = paused.keys.sorted().map { name in
                (name, .object([("by", .string(paused[name]!.by)), ("since", .number(paused[name]!.since))]))
            }
            members.append(("paused", .object(saved)))
        }
        if !snapshots.isEmpty { members.append(("snapshots", .array(snapshots))) }
        if !removed.isEmpty { members.append(("removed", .array(removed.map(JSONValue.string)))) }
        if !retired.isEmpty { members.append(("retired", .array(retired.map(JSONValue.string)))) }
        members += [("rules", .object(ruleMembers)), ("version", .number(1))]
        return .object(members)
    }

    // MARK: Fact values

    /// A fact state as the state file stores it.
    package static func json(_ state: FactState) -> JSONValue {
        guard case .value(let value) = state else { return .null }
        return json(value)
    }

    package static func json(_ value: FactValue) -> JSONValue {
        switch value {
        case .string(let s): .object([("s", .string(s))])
        case .bytes(let b): .object([("x", .string(b.map { FactValue.hexByte($0) }.joined()))])
        case .number(let n): .object([("n", .number(n))])
        case .bool(let b): .object([("b", .bool(b))])
        case .list(let items): .object([("l", .array(items.map(json)))])
        }
    }

    /// The facts of a snapshot, in the file's order: `null` is absent.
    package static func facts(_ object: Members) throws(JSONValue.ShapeError) -> [(FactKey, FactState)] {
        var facts: [(FactKey, FactState)] = []
        for (key, value) in object.all {
            if case .null = value {
                facts.append((FactKey(key), .absent))
            } else {
                facts.append((FactKey(key), .value(try factValue(value, path: object.path(of: key)))))
            }
        }
        return facts
    }

    package static func factValue(_ value: JSONValue, path: String) throws(JSONValue.ShapeError) -> FactValue {
        let stored = try Members(value, path: path)
        if let s = try stored.string("s") { return .string(s) }
        if let x = try stored.string("x") {
            var bytes: [UInt8] = []
            var digits = Substring(x)
            while digits.count >= 2 {
                guard let byte = UInt8(digits.prefix(2), radix: 16) else {
                    throw JSONValue.ShapeError(path: stored.path(of: "x"), reason: "not hex")
                }
                bytes.append(byte)
                digits = digits.dropFirst(2)
            }
            return .bytes(bytes)
        }
        if let n = try stored.number("n") { return .number(n) }
        if let b = try stored.bool("b") { return .bool(b) }
        var items: [FactValue] = []
        for item in try stored.array("l") { items.append(try factValue(item.value, path: item.path)) }
        guard stored["l"] != nil else {
            throw JSONValue.ShapeError(path: path, reason: "expected one of s, x, n, b, l")
        }
        return .list(items)
    }
}

extension PersistedState.SavedRule {
    package var document: JSONValue {
        .object(
            [
                ("confirmed", confirmed.map(JSONValue.bool) ?? .null),
                ("cooldown_until", cooldownUntil.map(JSONValue.number) ?? .null),
                (
                    "once_per_until",
                    .object(oncePerUntil.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) })
                ),
                ("fingerprint", .string(fingerprint)),
                (
                    "hold",
                    hold.map { .object([("deadline", .number($0.deadline)), ("target", .bool($0.target))]) } ?? .null
                ),
            ] + (identity.map { [("identity", JSONValue.string($0))] } ?? []))
    }

    package init(_ rule: JSONValue.Members) throws(JSONValue.ShapeError) {
        var hold: (target: Bool, deadline: Double)?
        if let saved = try rule.object("hold") {
            guard let target = try saved.bool("target"), let deadline = try saved.number("deadline") else {
                throw JSONValue.ShapeError(path: saved.path, reason: "expected a target and a deadline")
            }
            hold = (target, deadline)
        }
        var oncePer: [String: Double] = [:]
        if let saved = try rule.object("once_per_until") {
            for (edge, _) in saved.all { oncePer[edge] = try saved.number(edge) }
        }
        self.init(
            fingerprint: try rule.requiredString("fingerprint"), confirmed: try rule.bool("confirmed"),
            cooldownUntil: try rule.number("cooldown_until"), hold: hold, oncePerUntil: oncePer,
            identity: try rule.string("identity"))
    }
}
