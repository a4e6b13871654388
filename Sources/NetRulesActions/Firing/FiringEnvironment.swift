import NetRulesCore

/// The environment a `run` command or a plugin starts with.
///
/// The daemon's own environment (so `PATH` and `HOME` work), minus any inherited `NETRULES_*`
/// variable (a stale one would lie), plus `NETRULES_RULE`, `NETRULES_EDGE`, `NETRULES_TIME` (local,
/// with its offset), `NETRULES_TIME_UTC` and one
/// `NETRULES_<KEY>` per known fact, plus the action's own `env:` entries, which win. Unknown facts
/// have no variable; known-absent ones are set to the empty string. Values are the facts' raw
/// bytes (lists joined by spaces), cut at a NUL byte because environment entries are C strings.
enum FiringEnvironment {
    /// The daemon's part, prepared once per runner rather than once per firing: its entries minus
    /// `NETRULES_*`, as bytes, sorted by name.
    struct Base: Sendable {
        /// `(name, "NAME=value")`, sorted by name (byte order), each name once.
        let entries: [(name: [UInt8], entry: [UInt8])]

        init(_ environment: [String: String]) {
            entries = environment.compactMap { name, value in
                name.hasPrefix("NETRULES_") ? nil : (Array(name.utf8), Array("\(name)=\(value)".utf8))
            }.sorted { $0.name.lexicographicallyPrecedes($1.name) }
        }
    }

    /// The `NAME=value` entries, sorted by name (byte order), each name once.
    static func entries(for context: ActionContext, extra: [(name: String, value: [UInt8])] = []) -> [[UInt8]] {
        // The firing's own variables, each list winning over those before it on the same name:
        // the daemon's environment, the rule, edge and time, the facts (shared by the firings of
        // one store: `RenderedFacts`), the action's `env:` (the last of one name winning).
        func variable(_ name: String, _ value: [UInt8]) -> RenderedFacts.Variable {
            (name: Array(name.utf8), entry: Array(name.utf8) + [UInt8(ascii: "=")] + value)
        }
        let own = [
            variable("NETRULES_EDGE", Array(context.firing.edge.rawValue.utf8)),
            variable("NETRULES_RULE", Array(context.firing.rule.utf8)),
            variable("NETRULES_TIME", Array(context.localTime.utf8)),
            variable("NETRULES_TIME_UTC", Array(context.wallTime.utf8)),
        ]
        var actionOwn: [String: [UInt8]] = [:]
        for (name, value) in extra { actionOwn[name] = value }
        let action = actionOwn.map { variable($0.key, $0.value) }.sorted { $0.name.lexicographicallyPrecedes($1.name) }
        return merge([context.baseEnvironment.entries, own, context.renderedFacts.variables, action])
    }

    /// Merges lists each sorted by name with each name once; on a name in several, the entry of the
    /// last list holding it is kept.
    static func merge(_ lists: [[RenderedFacts.Variable]]) -> [[UInt8]] {
        var heads = [Int](repeating: 0, count: lists.count)
        var merged: [[UInt8]] = []
        merged.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        while true {
            var smallest: [UInt8]?
            for (index, list) in lists.enumerated() where heads[index] < list.count {
                let name = list[heads[index]].name
                if smallest.map({ name.lexicographicallyPrecedes($0) }) ?? true { smallest = name }
            }
            guard let name = smallest else { return merged }
            var kept: [UInt8] = []
            for index in lists.indices
            where heads[index] < lists[index].count && lists[index][heads[index]].name == name {
                kept = lists[index][heads[index]].entry
                heads[index] += 1
            }
            merged.append(kept)
        }
    }
}
