public import NetRulesCore

/// `fact: { key: K, equals: V | in: [..] | matches: REGEX | above: N | below: N }`, for any fact.
struct FactConditionKind: ConditionKind {
    let key = "fact"
    let summary = "A test on any fact, including those plugins report (e.g. vpn.connected)."

    private static let tests = ["equals", "in", "matches", "above", "below"]

    var schema: JSONValue {
        Schema.object(
            [
                "key": Schema.string("The fact's key, e.g. vpn.connected or hosts.intranet."),
                "equals": Schema.scalar("The fact equals this value."),
                "in": .object([("type", .string("array")), ("description", .string("The fact is one of these."))]),
                "matches": Schema.string("A regular expression searched in the fact's text."),
                "above": Schema.number("The fact is a number above this."),
                "below": Schema.number("The fact is a number below this."),
            ], required: ["key"], minProperties: 2)
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        guard let mapping = parser.context.mapping(node, path, what: "'{ key: K, equals: V }'") else { return nil }
        parser.context.rejectUnknownKeys(mapping, path, known: ["key"] + Self.tests, what: "a fact condition")
        guard let keyNode = mapping["key"] else {
            parser.context.error("a fact condition needs 'key'", at: mapping.mark, path: path)
            return nil
        }
        guard let keyText = parser.context.text(keyNode, path.key("key"), what: "a fact key") else { return nil }
        let factKey = FactKey(keyText)
        if !FactKey.vocabulary.contains(factKey), !FactKey.vocabularyNamespaces.contains(String(factKey.namespace)),
            let near = EditDistance.closest(to: keyText, among: FactKey.vocabulary.map(\.rawValue)), near != keyText
        {
            parser.context.warning(
                "'\(keyText)' is not a built-in fact; only a plugin can report it", at: keyNode.mark,
                path: path.key("key"), hint: "did you mean '\(near)'?")
        }
        var tests: [FactTestCondition.Test] = []
        var ok = true
        let exclusive = mapping.entries.filter { ["equals", "in", "matches"].contains($0.key.text) }
        if exclusive.count > 1 {
            parser.context.error(
                "'\(exclusive[0].key.text)' and '\(exclusive[1].key.text)' cannot be combined",
                at: exclusive[1].key.mark, path: path.key(exclusive[1].key.text),
                hint: "use 'any:' to accept either")
            ok = false
        }
        for (key, value) in mapping.entries where Self.tests.contains(key.text) {
            let p = path.key(key.text)
            switch key.text {
            case "equals":
                if let t = parser.context.text(value, p, what: "a value") {
                    tests.append(.equals(.string(t)))
                } else {
                    ok = false
                }
            case "in":
                if let items = parser.context.oneOrMany(value, p, what: "a value") {
                    tests.append(.oneOf(items.map { .string($0.text) }))
                } else {
                    ok = false
                }
            case "matches":
                if let pattern = parser.context.pattern(value, p) {
                    tests.append(.matches(pattern))
                } else {
                    ok = false
                }
            case "above":
                if let n = parser.context.number(value, p) { tests.append(.above(n)) } else { ok = false }
            default:
                if let n = parser.context.number(value, p) { tests.append(.below(n)) } else { ok = false }
            }
        }
        if ok && tests.isEmpty {
            parser.context.error(
                "a fact condition needs a test: equals, in, matches, above or below", at: mapping.mark, path: path)
            return nil
        }
        return ok ? FactTestCondition(key: factKey, tests: tests) : nil
    }
}

/// `all: [...]` and `any: [...]`.
struct LogicConditionKind: ConditionKind {
    enum Operator: String, Sendable {
        case all, any
    }

    let op: Operator

    init(_ op: Operator) { self.op = op }

    var key: String { op.rawValue }
    var summary: String {
        op == .all
            ? "Every condition of the list holds (unknown unless one is false)."
            : "Some condition of the list holds (unknown unless one is true)."
    }

    var schema: JSONValue {
        .object([
            ("type", .string("array")), ("minItems", .number(1)),
            ("items", .object([("$ref", .string("#/$defs/condition"))])),
            ("description", .string(summary)),
        ])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        guard let list = parser.context.sequence(node, path, what: "a list of conditions") else { return nil }
        if list.items.isEmpty {
            parser.context.error("'\(key)' needs at least one condition", at: list.mark, path: path)
            return nil
        }
        var members: [any Condition] = []
        var ok = true
        for (i, item) in list.items.enumerated() {
            if let c = parser.condition(item, at: path.index(i)) { members.append(c) } else { ok = false }
        }
        guard ok else { return nil }
        return op == .all ? AllCondition(members) : AnyCondition(members)
    }
}

/// `not: {...}`.
struct NotConditionKind: ConditionKind {
    let key = "not"
    let summary = "The condition does not hold (unknown stays unknown)."

    var schema: JSONValue {
        .object([("$ref", .string("#/$defs/condition")), ("description", .string(summary))])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        parser.condition(node, at: path).map(NotCondition.init)
    }
}
