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
        // The firing's own variables, the later winning as before: the rule, edge and time, the
        // facts (two keys can share a variable name), the action's `env:`.
        var firing: [[UInt8]: [UInt8]] = [:]
        firing.reserveCapacity(context.firing.facts.keys.count + extra.count + 4)
        firing[Array("NETRULES_RULE".utf8)] = Array(context.firing.rule.utf8)
        firing[Array("NETRULES_EDGE".utf8)] = Array(context.firing.edge.rawValue.utf8)
        firing[Array("NETRULES_TIME".utf8)] = Array(context.localTime.utf8)
        firing[Array("NETRULES_TIME_UTC".utf8)] = Array(context.wallTime.utf8)
        for (key, state) in context.firing.facts.known {
            firing[key.environmentVariableBytes] = state.value?.plainBytes ?? []
        }
        for (name, value) in extra { firing[Array(name.utf8)] = value }
        // Sorted as bytes: String's comparison is Unicode-aware and costs several times more, on
        // the path between an event and its action.
        let own = firing.sorted { $0.key.lexicographicallyPrecedes($1.key) }

        // Merge the two sorted lists; on the same name the firing's entry wins.
        let base = context.baseEnvironment.entries
        var merged: [[UInt8]] = []
        merged.reserveCapacity(base.count + own.count)
        var b = 0
        var o = 0
        while b < base.count || o < own.count {
            if o == own.count || (b < base.count && base[b].name.lexicographicallyPrecedes(own[o].key)) {
                merged.append(base[b].entry)
                b += 1
                continue
            }
            if b < base.count && base[b].name == own[o].key { b += 1 }
            merged.append(own[o].key + [UInt8(ascii: "=")] + own[o].value)
            o += 1
        }
        return merged
    }
}
