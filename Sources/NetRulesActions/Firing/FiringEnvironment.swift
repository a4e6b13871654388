import NetRulesCore
import NetRulesSystem

/// The environment a `run` command or a plugin starts with: the one builder of it.
///
/// As root (or as the daemon's own user): the daemon's own environment (so `PATH` and `HOME`
/// work), minus any inherited `NETRULES_*` variable (a stale one would lie). As another user
/// (`user:` naming anyone but root, or `user: active`): a clean start instead, with nothing of
/// the daemon's environment but its `LANG` and `LC_*` (the daemon runs as root and holds root's
/// secrets: `MQTT_PASSWORD`, every `{{env.NAME}}` token, the rest of the environment file), and
/// the fixed `PATH` `userSearchPath`.
///
/// Then `NETRULES_RULE`, `NETRULES_EDGE`, `NETRULES_TIME` (local, with its offset),
/// `NETRULES_TIME_UTC` and one `NETRULES_<KEY>` per known fact, then the action's own `env:`
/// entries, which win; last, for an action with `user:`, that user's login variables
/// (`UserAccount.loginVariables`: `HOME`, `USER`, `LOGNAME`, `SHELL`, and the session's
/// `XDG_RUNTIME_DIR` and `DBUS_SESSION_BUS_ADDRESS` when it has one), which win over `env:` so a
/// rule cannot point another user's child at root's `HOME`. Unknown facts have no variable;
/// known-absent ones are set to the empty string. Values are the facts' raw bytes (lists joined
/// by spaces), cut at a NUL byte because environment entries are C strings.
enum FiringEnvironment {
    /// The `PATH` of an action run as another user than root: the system's programs, none of
    /// root's own directories (`/usr/local/sbin`, `/usr/sbin`, `/sbin`) and nothing the daemon's
    /// environment added.
    static let userSearchPath = "/usr/local/bin:/usr/bin:/bin"

    /// The daemon's part, prepared once per runner rather than once per firing: its entries minus
    /// `NETRULES_*`, as bytes, sorted by name.
    struct Base: Sendable {
        /// `(name, "NAME=value")`, sorted by name (byte order), each name once.
        let entries: [(name: [UInt8], entry: [UInt8])]
        /// What an action run as another user starts with: the fixed `PATH` and the daemon's
        /// `LANG` and `LC_*`, sorted by name.
        let clean: [(name: [UInt8], entry: [UInt8])]

        init(_ environment: [String: String]) {
            entries = environment.compactMap { name, value in
                name.hasPrefix("NETRULES_") ? nil : (Array(name.utf8), Array("\(name)=\(value)".utf8))
            }.sorted { $0.name.lexicographicallyPrecedes($1.name) }
            let locale = entries.filter { $0.name == Array("LANG".utf8) || $0.name.starts(with: Array("LC_".utf8)) }
            clean = (locale + [(Array("PATH".utf8), Array("PATH=\(FiringEnvironment.userSearchPath)".utf8))])
                .sorted { $0.name.lexicographicallyPrecedes($1.name) }
        }
    }

    /// The `NAME=value` entries for an action run as `account`, sorted by name (byte order), each
    /// name once.
    /// - Parameters:
    ///   - extra: the action's own variables (`env:`, a plugin's `NETRULES_ACTION`); the last of
    ///     one name wins.
    ///   - account: whom the action runs as; the daemon's own user (the default) keeps the
    ///     daemon's environment.
    static func entries(
        for context: ActionContext, extra: [(name: String, value: [UInt8])] = [],
        as account: ActionAccount = .daemon(nil)
    ) -> [[UInt8]] {
        // The firing's own variables, each list winning over those before it on the same name:
        // the daemon's environment (or the clean start), the rule, edge and time, the facts
        // (shared by the firings of one store: `RenderedFacts`), the action's `env:`, the login.
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
        var action = actionOwn.map { variable($0.key, $0.value) }.sorted { $0.name.lexicographicallyPrecedes($1.name) }
        var base = account.startsClean ? context.baseEnvironment.clean : context.baseEnvironment.entries
        guard let login = account.login else {
            return merge([base, own, context.renderedFacts.variables, action])
        }
        // The login's names are the login's alone: without a session bus, no inherited
        // `XDG_RUNTIME_DIR` survives either.
        let loginNames = Set(UserAccount.loginVariableNames.map { Array($0.utf8) })
        base.removeAll { loginNames.contains($0.name) }
        action.removeAll { loginNames.contains($0.name) }
        let loginVariables = login.loginVariables.map { variable($0.name, Array($0.value.utf8)) }
        return merge([base, own, context.renderedFacts.variables, action, loginVariables])
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
