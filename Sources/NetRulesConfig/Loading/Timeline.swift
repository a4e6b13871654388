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
public struct Timeline: Sendable {
    /// One step: the time since the start and the update applied then.
    public struct Step: Sendable {
        public var at: Duration
        public var update: FactUpdate
    }

    public var steps: [Step]

    /// Parses a timeline file; nil with diagnostics when it is not valid.
    public static func parse(_ bytes: [UInt8], file: String) -> (timeline: Timeline?, diagnostics: [Diagnostic]) {
        let (root, yamlDiagnostics) = YAMLDocument.parse(bytes, file: file)
        var context = ValidationContext(file: file)
        context.append(yamlDiagnostics)
        guard let root else {
            if yamlDiagnostics.isEmpty {
                context.error("the timeline is empty", at: SourceMark(line: 1, column: 1), path: .root)
            }
            return (nil, context.diagnostics.sortedByPosition())
        }
        var steps: [Step] = []
        if let list = context.sequence(root, .root, what: "a list of steps ('- at: 0s')") {
            var last = Duration.zero
            for (i, item) in list.items.enumerated() {
                let p = KeyPath.root.index(i)
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
                        if let state = context.factState(value, p.key("facts").key(key.text)) {
                            update[FactKey(key.text)] = state
                        }
                    }
                }
                if let u = m["unknown"], let keys = context.oneOrMany(u, p.key("unknown"), what: "a fact key") {
                    for key in keys { update[FactKey(key.text)] = .unknown }
                }
                if m["facts"] == nil && m["unknown"] == nil {
                    context.error("the step changes nothing", at: m.mark, path: p, hint: "add 'facts:' or 'unknown:'")
                }
                steps.append(Step(at: at, update: update))
            }
        }
        return (context.hasErrors ? nil : Timeline(steps: steps), context.diagnostics.sortedByPosition())
    }
}

extension ValidationContext {
    /// A fact's value in a timeline: plain `null`/`~` is absent, a list is a list, the rest is text.
    mutating func factState(_ node: YAMLNode, _ path: KeyPath) -> FactState? {
        switch node {
        case .scalar(let s):
            return s.isNull ? .absent : .value(.string(s.text))
        case .sequence(let list):
            var items: [FactValue] = []
            for (i, item) in list.items.enumerated() {
                guard let t = text(item, path.index(i), what: "a value") else { return nil }
                items.append(.string(t))
            }
            return .value(.list(items))
        case .mapping:
            expected("a value or a list", found: node, path: path)
            return nil
        }
    }
}
