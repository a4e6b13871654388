/// Why a rule is or isn't true now: its condition tree with each node's value.
public struct Explanation: Sendable {
    /// One node of the condition tree.
    public struct Node: Sendable {
        /// The condition as `explain` shows it; says so when `if_unknown` decides its value.
        public var description: String
        /// The node's value with the current facts.
        public var truth: Truth
        /// The nodes of the nested conditions, for `all`, `any` and `not`.
        public var children: [Node]
    }

    /// The rule's name.
    public var rule: String
    /// The node of the rule's whole `when:` condition.
    public var root: Node
    /// The facts the condition read, with their states.
    public var facts: [(key: FactKey, state: FactState)]
    /// What the engine remembers about the rule: its confirmed value, a pending `for:` hold, and
    /// its `cooldown:` and `once_per:` windows.
    public var state: RuleState
    /// The engine's local clock, to show the state's deadlines as wall-clock times.
    public var clock: LocalClock

    /// The tree as indented text, one node a line: `true   all`, `  false  ssid in [Office]`.
    public var text: String {
        var lines: [String] = []
        func walk(_ node: Node, depth: Int) {
            let truth = node.truth.description.padding(to: 8)
            lines.append(String(repeating: "  ", count: depth) + truth + node.description)
            for child in node.children { walk(child, depth: depth + 1) }
        }
        walk(root, depth: 0)
        return lines.joined(separator: "\n")
    }
}

extension Engine {
    /// Explains the rule called `name`, or nil when there is none.
    public func explain(rule name: String) -> Explanation? {
        guard let index = index(ofRule: name) else { return nil }
        let facts = self.facts
        func node(_ condition: any Condition) -> Explanation.Node {
            var description = condition.description
            if let defaulted = condition as? UnknownDefaultCondition, defaulted.applies(facts) {
                description =
                    "\(defaulted.inner.description) (unknown, counted as \(defaulted.whenUnknown) by if_unknown)"
            }
            return Explanation.Node(
                description: description,
                truth: condition.evaluate(facts),
                children: condition.children.map(node)
            )
        }
        let rule = rules[index]
        let keys = Array(Set(rule.condition.readKeys)).sorted()
        return Explanation(
            rule: name,
            root: node(rule.condition),
            facts: keys.map { (key: $0, state: facts[$0]) },
            state: states[index],
            clock: clock
        )
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
