import Foundation
import NetRulesCore

/// What must survive a restart: each rule's state and the firings not yet fully handed to the
/// action runner. Stored as `state.json` in the state directory, replaced atomically.
///
/// Engine instants are relative to a process's start, so deadlines are stored as wall-clock
/// seconds since the Unix epoch and mapped back onto the new process's clock when loaded.
struct PersistedState {
    struct SavedRule {
        var fingerprint: String
        var confirmed: Bool?
        var cooldownUntil: Double?
        var hold: (target: Bool, deadline: Double)?
    }

    /// A firing whose actions have not all reported a result yet.
    struct SavedFiring {
        var id: String
        var rule: String
        var fingerprint: String
        var edge: Edge
        var time: String
        var facts: [(FactKey, FactState)]
    }

    var rules: [String: SavedRule] = [:]
    var inflight: [SavedFiring] = []
    var nextFiringNumber = 1

    static let fileName = "state.json"

    // MARK: Encoding

    /// The state file's bytes; the same state always gives the same bytes (keys sorted, no
    /// timestamp), so an unchanged state is not rewritten.
    func encoded() -> [UInt8] {
        // Built with NetRulesCore's JSONValue, not JSONSerialization: this runs between an event
        // and its action, and the Foundation path cost about 1.5 ms here against ~0.1 ms.
        let ruleMembers: [(String, JSONValue)] = rules.keys.sorted().map { name in
            let rule = rules[name]!
            return (
                name,
                .object([
                    ("confirmed", rule.confirmed.map(JSONValue.bool) ?? .null),
                    ("cooldown_until", rule.cooldownUntil.map(JSONValue.number) ?? .null),
                    ("fingerprint", .string(rule.fingerprint)),
                    (
                        "hold",
                        rule.hold.map { .object([("deadline", .number($0.deadline)), ("target", .bool($0.target))]) }
                            ?? .null
                    ),
                ])
            )
        }
        let firings: [JSONValue] = inflight.map { f in
            .object([
                ("edge", .string(f.edge.rawValue)),
                ("facts", .object(f.facts.sorted { $0.0 < $1.0 }.map { ($0.0.rawValue, Self.json($0.1)) })),
                ("fingerprint", .string(f.fingerprint)), ("id", .string(f.id)), ("rule", .string(f.rule)),
                ("time", .string(f.time)),
            ])
        }
        let document: JSONValue = .object([
            ("inflight", .array(firings)), ("next_firing", .number(Double(nextFiringNumber))),
            ("rules", .object(ruleMembers)), ("version", .number(1)),
        ])
        return Array(document.compact.utf8)
    }

    /// A fact state as the state file stores it (see `decode(_:)` for the shapes).
    static func json(_ state: FactState) -> JSONValue {
        guard case .value(let value) = state else { return .null }
        return json(value)
    }

    static func json(_ value: FactValue) -> JSONValue {
        switch value {
        case .string(let s): .object([("s", .string(s))])
        case .bytes(let b): .object([("x", .string(b.map { FactValue.hexByte($0) }.joined()))])
        case .number(let n): .object([("n", .number(n))])
        case .bool(let b): .object([("b", .bool(b))])
        case .list(let items): .object([("l", .array(items.map(json)))])
        }
    }

    /// Decodes a saved state; nil (with a reason) when the file is not one we wrote.
    static func decode(_ bytes: [UInt8]) -> (state: PersistedState?, problem: String?) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            object["version"] as? Int == 1
        else { return (nil, "not a version 1 state file") }
        var state = PersistedState()
        state.nextFiringNumber = object["next_firing"] as? Int ?? 1
        for (name, value) in object["rules"] as? [String: Any] ?? [:] {
            guard let r = value as? [String: Any], let fingerprint = r["fingerprint"] as? String else { continue }
            var rule = SavedRule(fingerprint: fingerprint, confirmed: r["confirmed"] as? Bool)
            rule.cooldownUntil = r["cooldown_until"] as? Double
            if let h = r["hold"] as? [String: Any], let t = h["target"] as? Bool, let d = h["deadline"] as? Double {
                rule.hold = (t, d)
            }
            state.rules[name] = rule
        }
        for value in object["inflight"] as? [[String: Any]] ?? [] {
            guard let id = value["id"] as? String, let rule = value["rule"] as? String,
                let fingerprint = value["fingerprint"] as? String,
                let edge = (value["edge"] as? String).flatMap(Edge.init(rawValue:)), let time = value["time"] as? String
            else { continue }
            let facts = (value["facts"] as? [String: Any] ?? [:]).compactMap { key, v in
                decode(v).map { (FactKey(key), $0) }
            }
            state.inflight.append(
                SavedFiring(id: id, rule: rule, fingerprint: fingerprint, edge: edge, time: time, facts: facts))
        }
        return (state, nil)
    }

    /// Fact states from JSON, keeping non-UTF-8 bytes exact: `{"s": "Office"}`, `{"x": "4fff"}`,
    /// `{"n": -61}`, `{"b": true}`, `{"l": [...]}`, `null` for absent.
    static func decode(_ any: Any) -> FactState? {
        if any is NSNull { return .absent }
        return decodeValue(any).map(FactState.value)
    }

    static func decodeValue(_ any: Any) -> FactValue? {
        guard let o = any as? [String: Any] else { return nil }
        if let s = o["s"] as? String { return .string(s) }
        if let x = o["x"] as? String {
            var bytes: [UInt8] = []
            var chars = Array(x.utf8)
            while chars.count >= 2 {
                guard let b = UInt8(String(decoding: chars[0..<2], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(b)
                chars.removeFirst(2)
            }
            return .bytes(bytes)
        }
        if let n = o["n"] as? Double { return .number(n) }
        if let b = o["b"] as? Bool { return .bool(b) }
        if let l = o["l"] as? [Any] { return .list(l.compactMap(decodeValue)) }
        return nil
    }
}
