import NetRulesCore

/// `fact: { key: K, equals: V | in: [..] | matches: REGEX | above: N | below: N | in_subnet: CIDRs }`,
/// for any fact. On MAC and address facts, `equals` and `in` take any spelling of the value and
/// are checked when rules load.
struct FactConditionKind: ConditionKind {
    let key = "fact"
    let summary = "A test on any fact, including those plugins report (e.g. vpn.connected)."

    private static let tests = ["equals", "in", "matches", "above", "below", "in_subnet"]

    var schema: JSONValue {
        Schema.object(
            [
                "key": Schema.string("The fact's key, e.g. vpn.connected or hosts.intranet."),
                "equals": Schema.scalar("The fact equals this value."),
                "in": .object([("type", .string("array")), ("description", .string("The fact is one of these."))]),
                "matches": Schema.string("A regular expression searched in the fact's text."),
                "above": Schema.number("The fact is a number above this."),
                "below": Schema.number("The fact is a number below this."),
                "in_subnet": .object([
                    ("description", .string("An address fact has an address in one of these CIDR blocks.")),
                    (
                        "anyOf",
                        .array([
                            Schema.string("A CIDR block."),
                            .object([("type", .string("array")), ("items", Schema.string("A CIDR block."))]),
                        ])
                    ),
                ]),
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
        if factKey.namespace == "mqtt", !parser.context.subscribed(factKey, at: keyNode.mark, path.key("key")) {
            return nil
        }
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
        /// A value as the key's kind writes it, or an error naming the kind.
        func typed(_ text: String, at mark: SourceMark, _ path: KeyPath) -> FactValue? {
            if let normalized = factKey.normalized(text) { return .string(normalized) }
            let what = factKey.kind == .mac ? "a MAC address" : "an IP address"
            parser.context.error(
                "'\(text)' is not \(what), and '\(factKey)' holds \(factKey.kind == .mac ? "MAC addresses" : "IP addresses")",
                at: mark, path: path,
                hint: factKey.kind == .mac ? "write it like a4:2b:8c:92:47:3c (any case, ':', '-' or none)" : nil)
            return nil
        }
        for (key, value) in mapping.entries where Self.tests.contains(key.text) {
            let p = path.key(key.text)
            switch key.text {
            case "equals":
                if let t = parser.context.text(value, p, what: "a value"), let v = typed(t, at: value.mark, p) {
                    tests.append(.equals(v))
                } else {
                    ok = false
                }
            case "in":
                if let items = parser.context.oneOrMany(value, p, what: "a value") {
                    let values = items.map { typed($0.text, at: $0.mark, $0.path) }
                    if values.contains(where: { $0 == nil }) {
                        ok = false
                    } else {
                        tests.append(.oneOf(values.map { $0! }))
                    }
                } else {
                    ok = false
                }
            case "in_subnet":
                guard factKey.kind == .address else {
                    parser.context.error(
                        "'in_subnet' tests address facts; '\(factKey)' does not hold addresses", at: key.mark, path: p,
                        hint: "address facts: ip, gateway, gateway6, dns")
                    ok = false
                    continue
                }
                if let items = parser.context.oneOrMany(value, p, what: "a CIDR block") {
                    let blocks = items.compactMap { item -> CIDR? in
                        if let block = CIDR(item.text) { return block }
                        parser.context.error(
                            "'\(item.text)' is not a CIDR block such as 192.0.2.0/24", at: item.mark, path: item.path)
                        return nil
                    }
                    if blocks.count == items.count { tests.append(.inSubnet(blocks)) } else { ok = false }
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
                "a fact condition needs a test: equals, in, matches, above, below or in_subnet", at: mapping.mark,
                path: path)
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
