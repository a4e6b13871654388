public import NetRulesCore

extension Timeline {
    /// What a timeline says its replay should fire, or not fire, and when.
    ///
    /// ```yaml
    /// expect:
    ///   - { at: 1d8h, fires: office-check-in, edge: enter }     # exactly then
    ///   - { between: [1d, 2d], fires: office-check-in, count: 1 }
    ///   - { between: [5d, 7d], fires: none }                   # nothing at all
    ///   - { between: [0s, 1h], fires: home, count: 0 }         # that rule never fires here
    /// ```
    /// `at:` is one instant, `between:` a closed window; `edge:` (either when left out) and `count:`
    /// (at least one when left out) narrow what matches. Firings no expectation mentions are not
    /// failures: a file lists what it cares about, `fires: none` says where nothing may fire, and
    /// `count: 0` where one rule (on that edge, if given) may not.
    public struct Expectation: Sendable, Hashable {
        /// When the expectation looks: one instant, or a closed window.
        public var window: ClosedRange<Duration>
        /// Whether the file wrote `at:` (one instant) rather than `between:`.
        public var isInstant: Bool
        /// The rule expected to fire; nil for `fires: none`, which expects no firing of any rule.
        public var rule: String?
        /// The edge expected; nil for either.
        public var edge: Edge?
        /// How many matching firings are expected; nil for at least one, 0 for "never fires here".
        public var count: Int?
        /// Where the expectation is written, for its report.
        public var mark: SourceMark
        /// Where the rule's name is written, for a name no loaded rule has.
        public var ruleMark: SourceMark
        /// The expectation's key path, such as `expect[1]`.
        public var path: String

        /// The firings within the window that match the rule and the edge (every firing for `none`).
        public func matching(_ firings: [Firing]) -> [Firing] {
            firings.filter {
                window.contains($0.at.offset) && (rule == nil || $0.rule == rule) && (edge == nil || $0.edge == edge)
            }
        }

        /// Whether the replay's firings satisfy the expectation.
        public func isMet(by firings: [Firing]) -> Bool {
            let seen = matching(firings).count
            if rule == nil { return seen == 0 }
            if let count { return seen == count }
            return seen > 0
        }

        /// The expectation as one phrase: `office-check-in (enter) at 1d8h`, `no firing between 5d and 7d`.
        public var summary: String {
            let when =
                isInstant
                ? "at \(DurationSyntax.format(window.lowerBound))"
                : "between \(DurationSyntax.format(window.lowerBound)) and \(DurationSyntax.format(window.upperBound))"
            guard let rule else { return "no firing \(when)" }
            if count == 0 { return "'\(rule)' never to fire \(edge.map { "\($0) " } ?? "")\(when)" }
            let times = count.map { $0 == 1 ? "once " : "\($0) times " } ?? ""
            return "'\(rule)' to fire \(edge.map { "\($0) " } ?? "")\(times)\(when)"
        }

        /// The report of an expectation `firings` do not meet, pointing at its line in `file`.
        public func failure(_ firings: [Firing], file: String) -> Diagnostic? {
            guard !isMet(by: firings) else { return nil }
            let seen = matching(firings)
            func list(_ some: [Firing]) -> String {
                let shown = some.prefix(3).map { "'\($0.rule)' \($0.edge) at \(DurationSyntax.format($0.at.offset))" }
                return shown.joined(separator: ", ") + (some.count > 3 ? " and \(some.count - 3) more" : "")
            }
            let message: String
            var hint: String?
            if rule == nil {
                message = "expected \(summary), but \(list(seen)) fired"
            } else if count != nil, !seen.isEmpty {
                message = "expected \(summary), but it fired \(seen.count == 1 ? "once" : "\(seen.count) times")"
                hint = list(seen)
            } else {
                message = "expected \(summary), and it did not fire"
                let others = firings.filter { $0.rule == rule }
                hint = others.isEmpty ? "it never fired in this timeline" : "it fired: \(list(others))"
            }
            return Diagnostic(message, file: file, mark: mark, keyPath: path, hint: hint)
        }
    }

    /// The reports of every expectation the firings do not meet, in the file's order.
    public func unmetExpectations(_ firings: [Firing], file: String) -> [Diagnostic] {
        expectations.compactMap { $0.failure(firings, file: file) }
    }
}

extension ValidationContext {
    /// Reads `expect:`: a list of `{ at: | between:, fires:, edge:, count: }`.
    mutating func expectations(_ node: YAMLNode, _ path: KeyPath) -> [Timeline.Expectation] {
        guard let list = sequence(node, path, what: "a list of expectations ('- { at: 1h, fires: RULE }')") else {
            return []
        }
        var result: [Timeline.Expectation] = []
        for (i, item) in list.items.enumerated() {
            let p = path.index(i)
            guard let m = mapping(item, p, what: "an expectation with 'at:' or 'between:', and 'fires:'") else {
                continue
            }
            rejectUnknownKeys(m, p, known: ["at", "between", "fires", "edge", "count"], what: "an expectation")
            var window: ClosedRange<Duration>?
            switch (m["at"], m["between"]) {
            case (.some, .some):
                error("an expectation has either 'at' or 'between', not both", at: m.mark, path: p)
            case (nil, nil):
                error("the expectation has no 'at' or 'between'", at: m.mark, path: p)
            case (let at?, nil):
                if let d = duration(at, p.key("at")) { window = d...d }
            case (nil, let between?):
                window = self.window(between, p.key("between"))
            }
            guard let firesNode = m["fires"] else {
                error("the expectation has no 'fires'", at: m.mark, path: p, hint: "name a rule, or 'none'")
                continue
            }
            guard let fires = text(firesNode, p.key("fires"), what: "a rule's name, or 'none'") else { continue }
            let rule = fires == "none" ? nil : fires
            var edge: Edge?
            if let e = m["edge"], let w = word(e, p.key("edge"), oneOf: Edge.allCases.map(\.rawValue)) {
                edge = Edge(rawValue: w)
            }
            var count: Int?
            if let c = m["count"] { count = integer(c, p.key("count"), in: 0...1_000_000) }
            if rule == nil, m["edge"] != nil || m["count"] != nil {
                error(
                    "'fires: none' expects no firing at all; 'edge' and 'count' need a rule", at: m.mark, path: p)
                continue
            }
            guard let window else { continue }
            result.append(
                Timeline.Expectation(
                    window: window, isInstant: m["at"] != nil, rule: rule, edge: edge, count: count, mark: m.mark,
                    ruleMark: firesNode.mark, path: p.description))
        }
        return result
    }

    /// `between: [FROM, TO]`, two durations in order.
    private mutating func window(_ node: YAMLNode, _ path: KeyPath) -> ClosedRange<Duration>? {
        guard let list = sequence(node, path, what: "two times, '[5d, 7d]'") else { return nil }
        guard list.items.count == 2 else {
            error("'between' takes two times, '[from, to]'", at: list.mark, path: path)
            return nil
        }
        guard let from = duration(list.items[0], path.index(0)), let to = duration(list.items[1], path.index(1))
        else { return nil }
        guard from <= to else {
            error(
                "the window ends before it starts; \(DurationSyntax.format(to)) comes before \(DurationSyntax.format(from))",
                at: list.items[1].mark, path: path.index(1))
            return nil
        }
        return from...to
    }
}
