import NetRulesCore

/// `ssid: NAME`, `ssid: [NAMES]`, `ssid: { matches: REGEX }`.
struct SSIDConditionKind: ConditionKind {
    let key = "ssid"
    let summary = "The Wi-Fi network's name is one of these (exact bytes), or matches a regular expression."

    var schema: JSONValue {
        Schema.anyOf([
            Schema.stringOrList("An SSID, compared byte for byte."),
            Schema.object(
                ["matches": Schema.string("A regular expression searched in the SSID.")], required: ["matches"]),
        ])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        if let mapping = node.mapping {
            parser.context.rejectUnknownKeys(mapping, path, known: ["matches"], what: "an ssid pattern")
            guard let entry = mapping.entry("matches") else {
                parser.context.error("an ssid pattern needs 'matches'", at: mapping.mark, path: path)
                return nil
            }
            guard let pattern = parser.context.pattern(entry.value, path.key("matches")) else { return nil }
            return SSIDCondition(.matches(pattern))
        }
        guard let names = parser.context.oneOrMany(node, path, what: "an SSID") else { return nil }
        var ok = true
        for (name, mark, _) in names where name.utf8.count > 32 {
            parser.context.error(
                "an SSID is at most 32 bytes; this one has \(name.utf8.count)", at: mark, path: path)
            ok = false
        }
        return ok ? SSIDCondition(.oneOf(names.map { Array($0.text.utf8) })) : nil
    }
}

/// `bssid: MAC` or `[MACS]`, normalised.
struct BSSIDConditionKind: ConditionKind {
    let key = "bssid"
    let summary = "The access point's MAC is one of these (any case; ':', '-', space or no separator)."

    var schema: JSONValue { Schema.macOrList("A MAC address such as a4:2b:8c:92:47:3c.") }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        let macs = parser.context.oneOrMany(
            node, path, what: "a MAC address", parse: MACAddress.init,
            problem: { ("'\($0)' is not a MAC address", "write six hex octets, e.g. a4:2b:8c:92:47:3c") })
        return macs.map { BSSIDCondition(Set($0)) }
    }
}

/// `portal: detected | clear`.
struct PortalConditionKind: ConditionKind {
    let key = "portal"
    let summary = "'detected' when a captive portal intercepts the web (connectivity is portal); 'clear' when online."

    var schema: JSONValue { Schema.enumeration(["detected", "clear"], summary) }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        guard let word = parser.context.word(node, path, oneOf: ["detected", "clear"]) else { return nil }
        return FactInSetCondition(
            key: .connectivity, accepted: [word == "detected" ? "portal" : "online"], spelling: "portal: \(word)")
    }
}

/// `connectivity: online | portal | offline` (or a list).
struct ConnectivityConditionKind: ConditionKind {
    let key = "connectivity"
    let summary = "The result of the captive-portal probe: online, portal or offline."

    var schema: JSONValue { Schema.enumerationOrList(["online", "portal", "offline"], summary) }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        parser.wordSet(node, path, key: .connectivity, name: "connectivity", words: ["online", "portal", "offline"])
    }
}

/// `network: wifi | wired | none` (or a list).
struct NetworkConditionKind: ConditionKind {
    let key = "network"
    let summary = "The kind of the default route's interface: wifi, wired, or none without a default route."

    var schema: JSONValue { Schema.enumerationOrList(["wifi", "wired", "none"], summary) }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        parser.wordSet(node, path, key: .network, name: "network", words: ["wifi", "wired", "none"])
    }
}

/// `reachable: HOST` / `unreachable: HOST`.
struct HostConditionKind: ConditionKind {
    let reachable: Bool
    var key: String { reachable ? "reachable" : "unreachable" }
    var summary: String {
        "The host (a name under 'hosts:', an address, a DNS name, or NAME:PORT for a TCP probe) "
            + (reachable ? "answers." : "does not answer any try of a probe round.")
    }

    var schema: JSONValue { Schema.string(summary) }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        guard let host = parser.host(node, at: path) else { return nil }
        return HostCondition(host: host.name, wantsReachable: reachable)
    }
}

/// `interface: { name: wg0, state: up | down }`.
struct InterfaceConditionKind: ConditionKind {
    let key = "interface"
    let summary = "A network interface is up or down (one that does not exist counts as down)."

    var schema: JSONValue {
        Schema.object(
            [
                "name": Schema.string("The interface's name, e.g. wg0."),
                "state": Schema.enumeration(["up", "down"], "The state to match (default: up)."),
            ], required: ["name"])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        guard let mapping = node.mapping else {
            parser.context.error(
                "expected '{ name: IFACE, state: up | down }', found \(node.kindDescription)", at: node.mark,
                path: path,
                hint: node.scalar.map { "write 'interface: { name: \($0.text), state: up }'" })
            return nil
        }
        parser.context.rejectUnknownKeys(mapping, path, known: ["name", "state"], what: "an interface condition")
        guard let nameNode = mapping["name"] else {
            parser.context.error("an interface condition needs 'name'", at: mapping.mark, path: path)
            return nil
        }
        guard let name = parser.context.text(nameNode, path.key("name"), what: "an interface name") else { return nil }
        var up = true
        if let stateNode = mapping["state"] {
            guard let state = parser.context.word(stateNode, path.key("state"), oneOf: ["up", "down"]) else {
                return nil
            }
            up = state == "up"
        }
        return InterfaceCondition(name: name, wantsUp: up)
    }
}

/// `gateway: IP | [IPs]`.
struct GatewayConditionKind: ConditionKind {
    let key = "gateway"
    let summary =
        "The default gateway (IPv4, or IPv6 for an IPv6 address) is one of these addresses; "
        + "'{ mac: MAC }' tests the gateway's MAC address instead (a network is known by its router)."

    var schema: JSONValue {
        Schema.anyOf([
            Schema.stringOrList("An IP address."),
            Schema.object(
                [
                    "address": Schema.stringOrList("An IP address."),
                    "mac": Schema.macOrList("The gateway's MAC address, in any spelling."),
                ], required: [], minProperties: 1),
        ])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        guard let mapping = node.mapping else { return addresses(node, path, &parser) }
        parser.context.rejectUnknownKeys(mapping, path, known: ["address", "mac"], what: "a gateway condition")
        var parts: [any Condition] = []
        var ok = true
        if let a = mapping["address"] {
            if let c = addresses(a, path.key("address"), &parser) { parts.append(c) } else { ok = false }
        }
        if let m = mapping["mac"] {
            let macs = parser.context.oneOrMany(
                m, path.key("mac"), what: "a MAC address", parse: MACAddress.init,
                problem: {
                    ("'\($0)' is not a MAC address", "write it like 11:22:33:44:55:66 (any case, ':', '-' or none)")
                })
            if let macs {
                parts.append(FactTestCondition(key: .gatewayMAC, tests: [.oneOf(macs.map { .string($0.description) })]))
            } else {
                ok = false
            }
        }
        guard ok else { return nil }
        guard !parts.isEmpty else {
            parser.context.error("a gateway condition needs 'address' or 'mac'", at: mapping.mark, path: path)
            return nil
        }
        return parts.count == 1 ? parts[0] : AllCondition(parts)
    }

    private func addresses(_ node: YAMLNode, _ path: KeyPath, _ parser: inout ConditionParser) -> (any Condition)? {
        let ips = parser.context.oneOrMany(
            node, path, what: "an IP address", parse: IPAddress.init, problem: { ("'\($0)' is not an IP address", nil) }
        )
        return ips.map { GatewayCondition(Set($0)) }
    }
}

/// `address: CIDR | [CIDRs]`.
struct AddressConditionKind: ConditionKind {
    let key = "address"
    let summary = "Some local address lies inside one of these blocks (e.g. 10.0.0.0/8, fd00::/8)."

    var schema: JSONValue { Schema.stringOrList("An address block in CIDR notation, or a single address.") }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        let blocks = parser.context.oneOrMany(
            node, path, what: "an address block", parse: CIDR.init,
            problem: { ("'\($0)' is not an address block", "write it like 10.0.0.0/8 or fd00::/8") })
        return blocks.map(AddressCondition.init)
    }
}

/// `signal: { above: N } | { below: N }`.
struct SignalConditionKind: ConditionKind {
    let key = "signal"
    let summary = "The Wi-Fi signal in dBm is above and/or below a level (e.g. above: -70)."

    var schema: JSONValue {
        Schema.object(
            [
                "above": Schema.number("Signal strictly above, in dBm."),
                "below": Schema.number("Signal strictly below."),
            ],
            required: [], minProperties: 1)
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        guard let mapping = parser.context.mapping(node, path, what: "'{ above: N }' or '{ below: N }'") else {
            return nil
        }
        parser.context.rejectUnknownKeys(mapping, path, known: ["above", "below"], what: "a signal condition")
        var tests: [FactTestCondition.Test] = []
        var ok = true
        for (key, value) in mapping.entries where key.text == "above" || key.text == "below" {
            guard let n = parser.context.number(value, path.key(key.text)) else {
                ok = false
                continue
            }
            tests.append(key.text == "above" ? .above(n) : .below(n))
        }
        if ok && tests.isEmpty {
            parser.context.error("a signal condition needs 'above' or 'below'", at: mapping.mark, path: path)
            return nil
        }
        return ok ? FactTestCondition(key: .signal, tests: tests) : nil
    }
}

extension ConditionParser {
    /// A fact compared with a word or a list of words.
    mutating func wordSet(_ node: YAMLNode, _ path: KeyPath, key: FactKey, name: String, words: [String])
        -> (any Condition)?
    {
        guard let accepted = context.words(node, path, oneOf: words) else { return nil }
        let spelling = "\(name): " + (accepted.count == 1 ? accepted[0] : "[\(accepted.joined(separator: ", "))]")
        return FactInSetCondition(key: key, accepted: Set(accepted), spelling: spelling)
    }
}

extension ValidationContext {
    /// A regular expression, compiled now so a bad one is a load error at its position.
    mutating func pattern(_ node: YAMLNode, _ path: KeyPath) -> TextPattern? {
        guard let t = text(node, path, what: "a regular expression") else { return nil }
        do {
            return try TextPattern(t)
        } catch {
            self.error("invalid regular expression '\(t)': \(error)", at: node.mark, path: path)
            return nil
        }
    }
}
