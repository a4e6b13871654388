public import NetRulesCore

/// Reads `when:` trees into compiled conditions, resolving host names against `hosts:`.
public struct ConditionParser: Sendable {
    /// Collects the diagnostics; read them here once parsing is done.
    public var context: ValidationContext
    /// The condition kinds `when:` may use.
    public let registry: Registry
    /// Hosts defined under the top-level `hosts:` map.
    public let namedHosts: [String: HostDefinition]
    /// Hosts written inline in conditions (`unreachable: 10.0.0.5`), by name.
    public private(set) var inlineHosts: [String: HostDefinition] = [:]
    /// The names of the places under `places:`, in file order, which `place:` may name.
    public var placeNames: [String] = []
    /// Whether the condition being read is a place's `when:`, which may not read `place`.
    public var readingPlace = false

    /// Creates a parser that reports into `context`.
    ///
    /// - Parameters:
    ///   - namedHosts: the hosts of the top-level `hosts:` map, by name.
    public init(context: ValidationContext, registry: Registry, namedHosts: [String: HostDefinition]) {
        self.context = context
        self.registry = registry
        self.namedHosts = namedHosts
    }

    /// Reads one condition mapping; several keys mean all of them.
    public mutating func condition(_ node: YAMLNode, at path: KeyPath) -> (any Condition)? {
        guard let mapping = node.mapping else {
            if node.sequence != nil {
                context.error(
                    "expected a condition mapping, found a list", at: node.mark, path: path,
                    hint: "to require every condition of a list, write 'all: [...]'; for any of them, 'any: [...]'")
            } else {
                context.expected("a condition mapping such as '{ ssid: Office }'", found: node, path: path)
            }
            return nil
        }
        if mapping.entries.isEmpty {
            context.error("the condition is empty", at: mapping.mark, path: path)
            return nil
        }
        var parts: [any Condition] = []
        var ok = true
        var whenUnknown: Bool?
        if let entry = mapping.entry("if_unknown") {
            if let value = context.bool(entry.value, path.key("if_unknown")) { whenUnknown = value } else { ok = false }
            if mapping.entries.count == 1 {
                context.error(
                    "'if_unknown' needs a condition beside it", at: entry.key.mark, path: path.key("if_unknown"),
                    hint: "write it next to the condition it applies to: '{ ssid: HomeNet, if_unknown: false }'")
                return nil
            }
        }
        for (key, value) in mapping.entries where key.text != "if_unknown" {
            if key.text.hasPrefix("mqtt."), registry.conditionKind(key.text) == nil {
                if let c = subscribedFact(key, value, at: path.key(key.text)) { parts.append(c) } else { ok = false }
                continue
            }
            guard let kind = registry.conditionKind(key.text) else {
                if Self.ruleKeys.contains(key.text) {
                    context.error(
                        "'\(key.text)' belongs to the rule, not to 'when'", at: key.mark, path: path.key(key.text),
                        hint: "indent '\(key.text):' like 'when:', as a key of the rule")
                } else {
                    context.error(
                        "unknown condition '\(key.text)'", at: key.mark, path: path.key(key.text),
                        hint: suggestion(for: key.text))
                }
                ok = false
                continue
            }
            if let c = kind.parse(value, at: path.key(key.text), in: &self) { parts.append(c) } else { ok = false }
        }
        guard ok else { return nil }
        let condition = parts.count == 1 ? parts[0] : AllCondition(parts)
        return whenUnknown.map { UnknownDefaultCondition(condition, whenUnknown: $0) } ?? condition
    }

    /// `mqtt.NAME: VALUE` (or a list of values): the last message on `subscribe:`'s topic for
    /// NAME is VALUE (compared as `fact:`'s `equals` compares); NAME must be declared.
    mutating func subscribedFact(_ key: YAMLScalar, _ value: YAMLNode, at path: KeyPath) -> (any Condition)? {
        let factKey = FactKey(key.text)
        let name = key.text.dropFirst("mqtt.".count)
        guard !name.isEmpty, MQTTSettings.isValidClientID(String(name)) else {
            context.error(
                "'\(key.text)' is not a fact name", at: key.mark, path: path,
                hint: "a subscribed fact is mqtt.NAME, NAME of a-z, A-Z, 0-9, '_' and '-'")
            return nil
        }
        guard context.subscribed(factKey, at: key.mark, path) else { return nil }
        guard let items = context.oneOrMany(value, path, what: "a value") else { return nil }
        let values = items.map { FactValue.string($0.text) }
        return FactTestCondition(key: factKey, tests: [values.count == 1 ? .equals(values[0]) : .oneOf(values)])
    }

    /// Keys of a rule, which a user may indent under `when:` by mistake.
    static let ruleKeys: Set<String> = [
        "name", "description", "on", "for", "cooldown", "once_per", "do", "enabled",
    ]

    /// Words people write for a condition netrules spells differently.
    static let synonyms: [String: String] = [
        "ping": "reachable", "pingable": "reachable", "reach": "reachable", "up": "reachable", "down": "unreachable",
        "online": "connectivity", "offline": "connectivity", "captive": "portal", "wifi": "ssid", "essid": "ssid",
        "ap": "bssid", "mac": "bssid", "router": "gateway", "ip": "address", "subnet": "address", "rssi": "signal",
    ]

    /// A "did you mean" for an unknown condition: a synonym, else the closest condition (a
    /// combinator only when it is clearly closer), else the list.
    func suggestion(for word: String) -> String {
        if let meant = Self.synonyms[word.lowercased()], registry.conditionKind(meant) != nil {
            return "did you mean '\(meant)'?"
        }
        let combinators: Set<String> = ["all", "any", "not"]
        let conditions = registry.conditionKinds.map(\.key).filter { !combinators.contains($0) }
        if let near = EditDistance.closest(to: word, among: conditions) { return "did you mean '\(near)'?" }
        if let near = combinators.sorted().first(where: { EditDistance.between($0, word) <= 1 }) {
            return "did you mean '\(near)'?"
        }
        return "known conditions: \(registry.conditionKinds.map(\.key).joined(separator: ", "))"
    }

    /// Resolves `HOST` in `reachable:`/`unreachable:`: a name under `hosts:`, else an inline address.
    public mutating func host(_ node: YAMLNode, at path: KeyPath) -> HostDefinition? {
        guard let text = context.text(node, path, what: "a host name, address or NAME:PORT") else { return nil }
        if let named = namedHosts[text] { return named }
        // `intranett` with a host `intranet` defined is a typo, not a DNS name to probe forever.
        if !namedHosts.isEmpty, IPAddress(text) == nil,
            let near = namedHosts.keys.sorted().first(where: { EditDistance.between($0, text) <= 2 })
        {
            context.error(
                "'\(text)' is not a host defined under 'hosts:'", at: node.mark, path: path,
                hint:
                    "did you mean '\(near)'? (to probe a DNS name this close to a defined host, define it under 'hosts:')"
            )
            return nil
        }
        guard let inline = HostDefinition(inline: text) else {
            context.error(
                "'\(text)' is neither a host defined under 'hosts:' nor an address, name or NAME:PORT",
                at: node.mark, path: path,
                hint: EditDistance.closest(to: text, among: Array(namedHosts.keys)).map { "did you mean '\($0)'?" })
            return nil
        }
        inlineHosts[inline.name] = inline
        return inline
    }
}
