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

    /// A place the rule's condition reads (`place: NAME`, or `place`, which reads them all): its
    /// condition, its proofs and where they stand.
    public struct Place: Sendable {
        /// The place's name.
        public var name: String
        /// Its `when:` on one line (`Condition.inlineDescription`).
        public var condition: String
        /// The value of its condition now.
        public var conditionTruth: Truth
        /// Its proofs as `HOST:PORT`; empty when it has none.
        public var proofs: [String]
        /// `places.NAME`: here, claimed or away.
        public var status: FactState
        /// `places.NAME.proof`: pending, passed or failed; null while away.
        public var proof: FactState
        /// `places.NAME.reason`: why the last proof failed; null unless it did.
        public var reason: FactState
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
    /// The places the condition reads, in file order.
    public var places: [Place] = []

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
        let read = Set(rule.condition.readKeys)
        let keys = Array(read).sorted()
        let places = self.places.filter { read.contains(.place) || read.contains(.placeStatus($0.name)) }.map {
            place in
            Explanation.Place(
                name: place.name, condition: place.condition.inlineDescription,
                conditionTruth: place.condition.evaluate(facts), proofs: place.proofs.map(\.description),
                status: facts[.placeStatus(place.name)], proof: facts[.placeProof(place.name)],
                reason: facts[.placeReason(place.name)])
        }
        return Explanation(
            rule: name,
            root: node(rule.condition),
            facts: keys.map { (key: $0, state: facts[$0]) },
            state: states[index],
            clock: clock,
            places: places
        )
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
