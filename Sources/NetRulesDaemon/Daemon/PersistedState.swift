import FoundationEssentials
import NetRulesCore

/// What must survive a restart: each rule's state and the firings not yet fully handed to the
/// action runner. Stored as `state.json` in the state directory, replaced atomically, plus the
/// changes since then as lines of `journal.jsonl` (`StateJournal`), each a document of the same
/// shape holding only the rules that changed (and `removed`, the rules that went).
///
/// Engine instants are relative to a process's start, so deadlines are stored as wall-clock
/// seconds since the Unix epoch and mapped back onto the new process's clock when loaded.
package struct PersistedState {
    struct SavedRule: Equatable {
        var fingerprint: String
        var confirmed: Bool?
        var cooldownUntil: Double?
        var hold: (target: Bool, deadline: Double)?
        /// `once_per:` deadlines per edge (`enter`, `exit`), as wall-clock seconds.
        var oncePerUntil: [String: Double] = [:]

        static func == (a: SavedRule, b: SavedRule) -> Bool {
            a.fingerprint == b.fingerprint && a.confirmed == b.confirmed && a.cooldownUntil == b.cooldownUntil
                && a.hold?.target == b.hold?.target && a.hold?.deadline == b.hold?.deadline
                && a.oncePerUntil == b.oncePerUntil
        }
    }

    /// A firing whose actions have not all reported a result yet.
    struct SavedFiring {
        var id: String
        var rule: String
        var fingerprint: String
        var edge: Edge
        var time: String
        var facts: [(FactKey, FactState)]
        /// The rule's action count when it fired (a reload may change the rule's list); nil in a
        /// file from an older netrules.
        var actionCount: Int?
        /// Actions before this index have reported: a restart resumes here.
        var nextAction: Int = 0
    }

    var rules: [String: SavedRule] = [:]
    var inflight: [SavedFiring] = []
    var nextFiringNumber = 1
    /// In a journal line: rules whose saved state went (their rule was removed, or has no state
    /// worth keeping any more).
    var removedRules: [String] = []
    /// In a journal line: firings that left the in-flight list (`inflight` then holds only the
    /// firings that are new or got further).
    var retiredFirings: [String] = []

    static let fileName = "state.json"

    // MARK: Journal

    /// One journal line: the rules whose saved state differs between `rules.old` and `rules.new`
    /// and those that went (nil: the rules did not change), the firings that are new or got further,
    /// and those that left — so a line costs what changed, not what is saved.
    static func journalLine(
        nextFiring: Int, rules: (old: [String: SavedRule], new: [String: SavedRule])?,
        inflight: (changed: [SavedFiring], retired: [String])
    ) -> PersistedState {
        var line = PersistedState()
        line.nextFiringNumber = nextFiring
        if let rules {
            for (name, rule) in rules.new where rules.old[name] != rule { line.rules[name] = rule }
            line.removedRules = rules.old.keys.filter { rules.new[$0] == nil }.sorted()
        }
        (line.inflight, line.retiredFirings) = inflight
        return line
    }

    /// Applies one journal line. Lines set values rather than adjust them, so replaying a line the
    /// state already holds (a crash between a compaction's rename and its truncation) is harmless.
    mutating func apply(_ delta: PersistedState) {
        for name in delta.removedRules { rules[name] = nil }
        for (name, rule) in delta.rules { rules[name] = rule }
        let retired = Set(delta.retiredFirings)
        inflight.removeAll { retired.contains($0.id) }
        for firing in delta.inflight {
            if let index = inflight.firstIndex(where: { $0.id == firing.id }) {
                inflight[index] = firing
            } else {
                inflight.append(firing)
            }
        }
        nextFiringNumber = max(nextFiringNumber, delta.nextFiringNumber)
    }

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
                    (
                        "once_per_until",
                        .object(rule.oncePerUntil.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) })
                    ),
                    ("fingerprint", .string(rule.fingerprint)),
                    (
                        "hold",
                        rule.hold.map { .object([("deadline", .number($0.deadline)), ("target", .bool($0.target))]) }
                            ?? .null
                    ),
                ])
            )
        }
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
            snapshots.append(.object(f.facts.sorted { $0.0 < $1.0 }.map { ($0.0.rawValue, Self.json($0.1)) }))
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
        var members: [(String, JSONValue)] = [
            ("inflight", .array(firings)), ("next_firing", .number(Double(nextFiringNumber))),
        ]
        if !snapshots.isEmpty { members.append(("snapshots", .array(snapshots))) }
        if !removedRules.isEmpty { members.append(("removed", .array(removedRules.map(JSONValue.string)))) }
        if !retiredFirings.isEmpty { members.append(("retired", .array(retiredFirings.map(JSONValue.string)))) }
        members += [("rules", .object(ruleMembers)), ("version", .number(1))]
        let document: JSONValue = .object(members)
        return document.compactBytes
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
        let file: StateFile
        do {
            file = try JSONDecoder().decode(StateFile.self, from: Data(bytes))
        } catch {
            // A DecodingError's description is a Swift debug dump; a person needs the gist.
            return (nil, "it is not a netrules state file (broken JSON, or a field of the wrong type)")
        }
        guard file.version == 1 else { return (nil, "not a version 1 state file") }
        var state = PersistedState()
        state.nextFiringNumber = file.next_firing ?? 1
        state.removedRules = file.removed ?? []
        state.retiredFirings = file.retired ?? []
        for (name, r) in file.rules ?? [:] {
            state.rules[name] = SavedRule(
                fingerprint: r.fingerprint, confirmed: r.confirmed, cooldownUntil: r.cooldown_until,
                hold: r.hold.map { ($0.target, $0.deadline) }, oncePerUntil: r.once_per_until ?? [:])
        }
        let snapshots = file.snapshots ?? []
        for f in file.inflight ?? [] {
            guard let edge = Edge(rawValue: f.edge) else { continue }
            // `facts_index` names a shared snapshot; a file from before snapshots has `facts` inline.
            let stored: [String: StoredValue?]
            if let index = f.facts_index {
                guard snapshots.indices.contains(index) else { continue }
                stored = snapshots[index]
            } else {
                stored = f.facts ?? [:]
            }
            let facts = stored.map { key, value in
                (FactKey(key), value.map { FactState.value($0.factValue) } ?? .absent)
            }
            state.inflight.append(
                SavedFiring(
                    id: f.id, rule: f.rule, fingerprint: f.fingerprint, edge: edge, time: f.time, facts: facts,
                    actionCount: f.actions, nextAction: max(0, f.next_action ?? 0)))
        }
        return (state, nil)
    }
}

/// The state file's shape, for decoding (the names are the file's keys).
private struct StateFile: Decodable {
    struct Rule: Decodable {
        var fingerprint: String
        var confirmed: Bool?
        var cooldown_until: Double?
        var once_per_until: [String: Double]?
        var hold: Hold?
    }

    struct Hold: Decodable {
        var target: Bool
        var deadline: Double
    }

    struct Firing: Decodable {
        var id: String
        var rule: String
        var fingerprint: String
        var edge: String
        var time: String
        var facts: [String: StoredValue?]?
        var facts_index: Int?
        var actions: Int?
        var next_action: Int?
    }

    var version: Int
    var next_firing: Int?
    var removed: [String]?
    var snapshots: [[String: StoredValue?]]?
    var retired: [String]?
    var rules: [String: Rule]?
    var inflight: [Firing]?
}

/// A fact value as stored: `{"s": "Office"}`, `{"x": "4fff"}` (bytes, hex), `{"n": -61}`,
/// `{"b": true}`, `{"l": [...]}`.
private indirect enum StoredValue: Decodable {
    case text(String)
    case bytes([UInt8])
    case number(Double)
    case bool(Bool)
    case list([StoredValue])

    private enum Key: String, CodingKey {
        case s, x, n, b, l
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if let s = try c.decodeIfPresent(String.self, forKey: .s) {
            self = .text(s)
        } else if let x = try c.decodeIfPresent(String.self, forKey: .x) {
            var bytes: [UInt8] = []
            var digits = Substring(x)
            while digits.count >= 2 {
                guard let byte = UInt8(digits.prefix(2), radix: 16) else {
                    throw DecodingError.dataCorruptedError(forKey: .x, in: c, debugDescription: "not hex")
                }
                bytes.append(byte)
                digits = digits.dropFirst(2)
            }
            self = .bytes(bytes)
        } else if let n = try c.decodeIfPresent(Double.self, forKey: .n) {
            self = .number(n)
        } else if let b = try c.decodeIfPresent(Bool.self, forKey: .b) {
            self = .bool(b)
        } else {
            self = .list(try c.decode([StoredValue].self, forKey: .l))
        }
    }

    var factValue: FactValue {
        switch self {
        case .text(let s): .string(s)
        case .bytes(let b): .bytes(b)
        case .number(let n): .number(n)
        case .bool(let b): .bool(b)
        case .list(let items): .list(items.map(\.factValue))
        }
    }
}
