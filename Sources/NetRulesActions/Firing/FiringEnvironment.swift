import NetRulesCore

/// The environment a `run` command or a plugin starts with.
///
/// The daemon's own environment (so `PATH` and `HOME` work), minus any inherited `NETRULES_*`
/// variable (a stale one would lie), plus `NETRULES_RULE`, `NETRULES_EDGE`, `NETRULES_TIME` and one
/// `NETRULES_<KEY>` per known fact, plus the action's own `env:` entries, which win. Unknown facts
/// have no variable; known-absent ones are set to the empty string. Values are the facts' raw
/// bytes (lists joined by spaces), cut at a NUL byte because environment entries are C strings.
enum FiringEnvironment {
    /// The `NAME=value` entries, sorted by name (byte order), each name once.
    static func entries(for context: ActionContext, extra: [(name: String, value: [UInt8])] = []) -> [[UInt8]] {
        var variables: [String: [UInt8]] = [:]
        for (name, value) in context.environment where !name.hasPrefix("NETRULES_") {
            variables[name] = Array(value.utf8)
        }
        variables["NETRULES_RULE"] = Array(context.firing.rule.utf8)
        variables["NETRULES_EDGE"] = Array(context.firing.edge.rawValue.utf8)
        variables["NETRULES_TIME"] = Array(context.wallTime.utf8)
        for (key, state) in context.firing.facts.known {
            variables[key.environmentVariable] = state.value?.plainBytes ?? []
        }
        for (name, value) in extra { variables[name] = value }
        // Sorted as bytes: String's comparison is Unicode-aware and costs several times more, on
        // the path between an event and its action.
        return variables.map { (name: Array($0.key.utf8), value: $0.value) }
            .sorted { $0.name.lexicographicallyPrecedes($1.name) }
            .map { $0.name + [UInt8(ascii: "=")] + $0.value }
    }
}
