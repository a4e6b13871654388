public import NetRulesCore

/// A replayable sequence of fact changes, for `simulate` and tests.
///
/// ```yaml
/// - at: 0s
///   facts: { ssid: HomeNet, connectivity: online }
/// - at: 2m10s
///   facts: { ssid: XF-WORLD, bssid: A4-2B-8C-92-47-3D, connectivity: portal }
///   unknown: [signal]
/// ```
/// Facts not named keep their value; `null` sets known-absent; `unknown:` forgets keys.
/// Values are text (a list for `ip`/`dns`): `ssid: no` stays the SSID "no".
///
/// A timeline that states what should happen is a mapping of `steps:` and `expect:`
/// (see ``Expectation``), so a rule file can be checked like code:
/// ```yaml
/// steps:
///   - at: 0s
///     facts: { ssid: HomeNet }
/// expect:
///   - { at: 8h55m10s, fires: office-check-in, edge: enter }
///   - { between: [5d, 7d], fires: none }
/// ```
public struct Timeline: Sendable {
    /// One step: the time since the start and the update applied then.
    public struct Step: Sendable {
        /// The time since the timeline's start (`at:`).
        public var at: Duration
        /// The changes applied then: facts set, made absent (`null`) or forgotten (`unknown:`).
        public var update: FactUpdate
    }

    /// The steps, in time order.
    public var steps: [Step]
    /// What the replay should and should not fire, in the file's order; empty for a plain list of steps.
    public var expectations: [Expectation] = []
    /// Every fact key the timeline names, where it names it first: `simulate` checks them against
    /// the rules it loaded.
    public var keys: [(key: FactKey, mark: SourceMark, path: String)] = []

    /// Parses a timeline file; nil with diagnostics when it is not valid.
    public static func parse(_ bytes: [UInt8], file: String) -> (timeline: Timeline?, diagnostics: [Diagnostic]) {
        let (timeline, diagnostics) = parsePartially(bytes, file: file)
        return (diagnostics.contains { $0.severity == .error } ? nil : timeline, diagnostics)
    }

    /// Parses a timeline file as far as it is valid: the steps, keys and expectations that parsed,
    /// even when others did not, with every diagnostic sorted by position.
    ///
    /// A caller with checks of its own (`simulate` holds the keys against the rules) runs them on
    /// this partial timeline, so a file with a bad value *and* a misspelt key reports both in one
    /// pass instead of the second only once the first is fixed. The timeline is usable only when
    /// no diagnostic is an error.
    public static func parsePartially(_ bytes: [UInt8], file: String) -> (timeline: Timeline, diagnostics: [Diagnostic])
    {
        let (root, yamlDiagnostics) = YAMLDocument.parse(bytes, file: file)
        var context = ValidationContext(file: file)
        context.append(yamlDiagnostics)
        guard let root else {
            if yamlDiagnostics.isEmpty {
                context.error("the timeline is empty", at: SourceMark(line: 1, column: 1), path: .root)
            }
            return (Timeline(steps: []), context.diagnostics.sortedByPosition())
        }
        var stepsNode = root
        var stepsPath = KeyPath.root
        var expectations: [Expectation] = []
        if case .mapping(let m) = root {
            context.rejectUnknownKeys(m, .root, known: ["steps", "expect"], what: "a timeline")
            if let e = m["expect"] { expectations = context.expectations(e, KeyPath.root.key("expect")) }
            guard let s = m["steps"] else {
                context.error("the timeline has no 'steps'", at: m.mark, path: .root)
                var partial = Timeline(steps: [])
                partial.expectations = expectations
                return (partial, context.diagnostics.sortedByPosition())
            }
            stepsNode = s
            stepsPath = KeyPath.root.key("steps")
        }
        var steps: [Step] = []
        var keys: [(key: FactKey, mark: SourceMark, path: String)] = []
        var seen: Set<FactKey> = []
        func note(_ key: FactKey, _ mark: SourceMark, _ path: KeyPath) {
            if seen.insert(key).inserted { keys.append((key, mark, path.description)) }
        }
        if let list = context.sequence(
            stepsNode, stepsPath, what: "a list of steps ('- at: 0s'), or a mapping of 'steps:' and 'expect:'")
        {
            var last = Duration.zero
            for (i, item) in list.items.enumerated() {
                let p = stepsPath.index(i)
                guard let m = context.mapping(item, p, what: "a step with 'at:' and 'facts:'") else { continue }
                context.rejectUnknownKeys(m, p, known: ["at", "facts", "unknown"], what: "a timeline step")
                guard let atNode = m["at"] else {
                    context.error("the step has no 'at'", at: m.mark, path: p)
                    continue
                }
                guard let at = context.duration(atNode, p.key("at")) else { continue }
                if at < last {
                    context.error(
                        "steps must be in time order; \(DurationSyntax.format(at)) comes after \(DurationSyntax.format(last))",
                        at: atNode.mark, path: p.key("at"))
                }
                last = max(last, at)
                var update = FactUpdate()
                if let f = m["facts"], let fm = context.mapping(f, p.key("facts"), what: "a mapping of facts") {
                    for (key, value) in fm.entries {
                        let factKey = FactKey(key.text)
                        note(factKey, key.mark, p.key("facts").key(key.text))
                        if let state = context.factState(value, p.key("facts").key(key.text), key: factKey) {
                            update[factKey] = state
                        }
                    }
                }
                if let u = m["unknown"], let named = context.oneOrMany(u, p.key("unknown"), what: "a fact key") {
                    for key in named {
                        note(FactKey(key.text), key.mark, key.path)
                        update[FactKey(key.text)] = .unknown
                    }
                }
                if m["facts"] == nil && m["unknown"] == nil {
                    context.error("the step changes nothing", at: m.mark, path: p, hint: "add 'facts:' or 'unknown:'")
                }
                steps.append(Step(at: at, update: update))
            }
        }
        var timeline = Timeline(steps: steps)
        timeline.keys = keys
        timeline.expectations = expectations
        return (timeline, context.diagnostics.sortedByPosition())
    }
}

extension ValidationContext {
    /// A fact's value in a timeline: plain `null`/`~` is absent, a list is a list, the rest is text.
    /// Built-in facts are checked and written as their observers write them (MACs and addresses
    /// normalised, words from their set), so `simulate` sees what the daemon would.
    mutating func factState(_ node: YAMLNode, _ path: KeyPath, key: FactKey) -> FactState? {
        func checked(_ text: String, at mark: SourceMark, _ path: KeyPath) -> FactValue? {
            switch key.checkedValue(text) {
            case .success(let value): return .string(value)
            case .failure(let problem):
                error(problem.message, at: mark, path: path, hint: problem.hint)
                return nil
            }
        }
        switch node {
        case .scalar(let s):
            if s.isNull { return .absent }
            return checked(s.text, at: s.mark, path).map(FactState.value)
        case .sequence(let list):
            var items: [FactValue] = []
            for (i, item) in list.items.enumerated() {
                guard let t = text(item, path.index(i), what: "a value"),
                    let v = checked(t, at: item.mark, path.index(i))
                else { return nil }
                items.append(v)
            }
            return .value(.list(items))
        case .mapping:
            expected("a value or a list", found: node, path: path)
            return nil
        }
    }
}
