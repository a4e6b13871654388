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
        var ruleObject: [String: Any] = [:]
        for (name, rule) in rules {
            var r: [String: Any] = ["fingerprint": rule.fingerprint, "confirmed": rule.confirmed ?? NSNull()]
            r["cooldown_until"] = rule.cooldownUntil ?? NSNull()
            r["hold"] = rule.hold.map { ["target": $0.target, "deadline": $0.deadline] as [String: Any] } ?? NSNull()
            ruleObject[name] = r
        }
        let firings: [[String: Any]] = inflight.map { f in
            [
                "id": f.id, "rule": f.rule, "fingerprint": f.fingerprint, "edge": f.edge.rawValue, "time": f.time,
                "facts": Dictionary(uniqueKeysWithValues: f.facts.map { ($0.0.rawValue, Self.encode($0.1)) }),
            ]
        }
        let document: [String: Any] = [
            "version": 1, "next_firing": nextFiringNumber,
            "rules": ruleObject, "inflight": firings,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Array(data)
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

    /// Fact states as JSON, keeping non-UTF-8 bytes exact: `{"s": "Office"}`, `{"x": "4fff"}`,
    /// `{"n": -61}`, `{"b": true}`, `{"l": [...]}`, `null` for absent.
    static func encode(_ state: FactState) -> Any {
        switch state {
        case .unknown, .absent: return NSNull()
        case .value(let v): return encode(v)
        }
    }

    static func encode(_ value: FactValue) -> Any {
        switch value {
        case .string(let s): return ["s": s]
        case .bytes(let b): return ["x": b.map { String(format: "%02x", $0) }.joined()]
        case .number(let n): return ["n": n]
        case .bool(let b): return ["b": b]
        case .list(let items): return ["l": items.map(encode)]
        }
    }

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
