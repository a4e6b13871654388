/// Why a rule is or isn't true now: its condition tree with each node's value.
public struct Explanation: Sendable {
    /// One node of the condition tree.
    public struct Node: Sendable {
        public var description: String
        public var truth: Truth
        public var children: [Node]
    }

    public var rule: String
    public var root: Node
    /// The facts the condition read, with their states.
    public var facts: [(key: FactKey, state: FactState)]
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
