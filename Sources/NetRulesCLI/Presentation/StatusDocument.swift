import NetRulesCore
import NetRulesDaemon
import NetRulesLinux

/// `status`'s document, as text and JSON, whether a daemon answered or the system was read directly.
///
/// Both hold the facts as `ControlDocuments.status` writes them, `{"version":1,"facts":{…}}` with
/// the keys sorted, unknown facts left out and absent ones `null`; a direct reading adds
/// `interfaces` (state, MAC, addresses), which only people need. The text is made from the same
/// values either way, so the two cannot drift apart.
struct StatusDocument {
    /// The known facts by key, sorted, as JSON.
    var facts: [(String, JSONValue)]
    /// The keys a daemon's rules can read that nobody has reported; empty for a direct reading.
    var unknown: [String] = []
    /// Each interface's details, in kernel index order; nil when a daemon answered.
    var interfaces: [NetworkSnapshot.Interface]?
    /// The default route's interface, shown after the gateway; only a direct reading knows it.
    var gatewayInterface: String?
    /// What the daemon's webhook outbox holds, as JSON (`pending`, `pending_bytes`, `failed`); only a
    /// daemon knows it.
    var outbox: JSONValue?
    /// The daemon's observers that stopped and have not reported since, as JSON; only a daemon knows them.
    var observers: JSONValue?
    /// The daemon's last reload's errors while it failed (`ControlDocuments.failedReload`), as JSON.
    var failedReload: JSONValue?
    /// The zone and clock its times are shown in; nil for this machine's.
    var reloadTimes: FailedReloadText?
    /// The daemon's MQTT connection, as JSON (`broker`, `client_id`, `state`, `since`), with `mqtt:`.
    var mqtt: JSONValue?
    /// The rules a command paused, as JSON (`rule`, `by`, `since` each); nil when none is.
    var paused: JSONValue?

    /// A daemon's answer to `status`.
    init(answer: JSONValue) {
        if case .object(let members)? = answer.member("facts") { facts = members } else { facts = [] }
        if case .array(let keys)? = answer.member("unknown") { unknown = keys.compactMap(\.stringValue) }
        if case .object? = answer.member("outbox") { outbox = answer.member("outbox") }
        if case .object? = answer.member("observers") { observers = answer.member("observers") }
        if case .object? = answer.member("failed_reload") { failedReload = answer.member("failed_reload") }
        if case .object? = answer.member("mqtt") { mqtt = answer.member("mqtt") }
        if case .array? = answer.member("paused") { paused = answer.member("paused") }
    }

    /// A direct reading of the system.
    init(_ snapshot: NetworkSnapshot) {
        var store = FactStore()
        _ = store.apply(FactUpdate(snapshot.facts))
        self.init(answer: ControlDocuments.status(store))
        interfaces = snapshot.interfaces
        gatewayInterface = snapshot.gatewayInterface
    }

    /// The `--json` document, on one line: `version`, `facts`, then from a daemon `unknown`, `outbox`
    /// and, when the daemon has them, `observers`, `failed_reload`, `mqtt` and `paused`; from a direct
    /// reading `interfaces`.
    var json: String {
        var members: [(String, JSONValue)] = [
            ("version", .number(Double(ControlDocuments.version))), ("facts", .object(facts)),
        ]
        if interfaces == nil { members.append(("unknown", .array(unknown.map(JSONValue.string)))) }
        if let outbox { members.append(("outbox", outbox)) }
        if let observers { members.append(("observers", observers)) }
        if let failedReload { members.append(("failed_reload", failedReload)) }
        if let mqtt { members.append(("mqtt", mqtt)) }
        if let paused { members.append(("paused", paused)) }
        if let interfaces {
            let sorted = interfaces.sorted { $0.name < $1.name }
            members.append(("interfaces", .object(sorted.map { ($0.name, Self.json($0)) })))
        }
        return JSONValue.object(members).compact + "\n"
    }

    /// One interface's details, keys sorted.
    private static func json(_ interface: NetworkSnapshot.Interface) -> JSONValue {
        let ipv4 = interface.ipv4.map { address in
            JSONValue.object([
                ("address", .string(address.cidr)), ("broadcast", address.broadcast.map(JSONValue.string) ?? .null),
                ("netmask", .string(address.netmask)),
            ])
        }
        return .object([
            ("ipv4", .array(ipv4)), ("ipv6", .array(interface.ipv6.map(JSONValue.string))),
            ("mac", interface.mac.map(JSONValue.string) ?? .null), ("state", .string(interface.state)),
        ])
    }

    /// The facts rules use most, in the order a person reads a network: addresses, then Wi-Fi.
    private static let order: [FactKey] = [
        .ip, .gateway, .gatewayMAC, .gateway6, .dns, .network, .ssid, .bssid, .signal, .frequency, .interface,
    ]
    private static let wifiKeys: Set<FactKey> = [.ssid, .bssid, .signal, .frequency, .interface]

    /// The human text: one fact per line, keys in a column, in the same layout whether a daemon
    /// answered or the system was read directly.
    ///
    /// `source: daemon` or `source: the system, read directly (no daemon)`; while the daemon's last
    /// reload failed, `rules: /etc/netrules/hello.yaml has errors since 17:11:25 (2); running the
    /// previous rules` (`FailedReloadText`); then the interfaces (a direct reading adds each one's
    /// MAC and addresses indented beneath), then the facts rules use most in a fixed order, `unknown` ones included, then every other fact in key order (from a
    /// daemon, those its rules read but nobody reported as `unknown`). Values read the same either
    /// way: `none` for absent facts and empty lists, list items joined with `, `, units on
    /// `signal` and `frequency`. A daemon's answer ends with its outbox:
    /// `outbox: 3 pending (1.2 KiB), 1 failed`, its MQTT connection, and a line for each rule a
    /// command paused: `paused: office-check-in (from MQTT at 2026-12-01 09:02 +0100)`.
    var text: String {
        let values = Dictionary(facts, uniquingKeysWith: { first, _ in first })
        let common = Self.order.map(\.rawValue)
        let interfaceFacts = facts.map(\.0).filter { $0.hasPrefix("interfaces.") }
        let others = Set(facts.map(\.0) + unknown).subtracting(common).filter { !$0.hasPrefix("interfaces.") }.sorted()
        let shownInterfaces =
            interfaces.map { $0.map { "interfaces." + TerminalText.escaped($0.name) } }
            ?? interfaceFacts.map(TerminalText.escaped)
        let width = ((shownInterfaces + (common + others).map(TerminalText.escaped)).map(\.count).max() ?? 0) + 2
        func pad(_ text: String) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
        func show(_ key: String) -> String {
            let text: String
            switch values[key] {
            case .null?: return "none"
            case .array(let items)?: return items.isEmpty ? "none" : items.map(\.plainText).joined(separator: ", ")
            case let value?: text = value.plainText
            case nil:
                return interfaces != nil && Self.wifiKeys.contains(FactKey(key))
                    ? "unknown (no Wi-Fi information from the kernel)" : "unknown"
            }
            switch FactKey(key) {
            case .gateway: return text + (gatewayInterface.map { " via " + TerminalText.escaped($0) } ?? "")
            case .signal: return text + " dBm"
            case .frequency: return text + " MHz"
            default: return text
            }
        }
        var lines = [interfaces == nil ? "source: daemon" : "source: the system, read directly (no daemon)"]
        if let line = (reloadTimes ?? .system).line(failedReload) { lines.append(line) }
        if let interfaces {
            for interface in interfaces {
                // Interface names are the kernel's, but any process with CAP_NET_ADMIN chooses them.
                lines.append(
                    pad("interfaces." + TerminalText.escaped(interface.name)) + TerminalText.escaped(interface.state)
                        + (interface.mac.map { "  mac " + TerminalText.escaped($0) } ?? ""))
                for address in interface.ipv4 {
                    lines.append(
                        pad("") + "inet  \(address.cidr)  netmask \(address.netmask)"
                            + (address.broadcast.map { "  broadcast \($0)" } ?? ""))
                }
                for address in interface.ipv6 { lines.append(pad("") + "inet6 \(address)") }
            }
        } else {
            for key in interfaceFacts { lines.append(pad(TerminalText.escaped(key)) + show(key)) }
        }
        for key in common + others { lines.append(pad(TerminalText.escaped(key)) + show(key)) }
        if let outbox {
            func count(_ key: String) -> Int { outbox.member(key)?.numberValue.map { Int($0) } ?? 0 }
            lines.append(
                "outbox: \(count("pending")) pending (\(ByteCountSyntax.format(count("pending_bytes")))), "
                    + "\(count("failed")) failed")
        }
        let failed = ControlDocuments.failedObservers(from: observers)
        if !failed.isEmpty {
            // `observers: 1 failed` then one line each: what stopped, why, what waits for it.
            lines.append("observers: \(failed.count) failed")
            for failure in failed {
                var line = "  \(failure.name): \(failure.error ?? "ended")"
                if !failure.facts.isEmpty { line += "; unknown: " + failure.facts.joined(separator: ", ") }
                if !failure.rules.isEmpty { line += "; cannot become true: " + failure.rules.joined(separator: ", ") }
                if let next = failure.nextAttempt { line += "; next try at \(next)" }
                lines.append(line)
            }
        }
        if let mqtt {
            func text(_ key: String) -> String { TerminalText.escaped(mqtt.member(key)?.stringValue ?? "") }
            let state = text("state")
            let verb = state == "connected" ? "connected to" : "\(state), broker"
            lines.append("mqtt: \(verb) \(text("broker")) as \(text("client_id")), since \(text("since"))")
        }
        if case .array(let rules)? = paused {
            for rule in rules {
                let since = rule.member("since")?.stringValue
                let at = since.flatMap(ExplainDocument.localMinutes) ?? since.map(TerminalText.escaped) ?? "?"
                lines.append(
                    "paused: \(rule.member("rule")?.plainText ?? "?") (from \(rule.member("by")?.plainText ?? "?") at \(at))"
                )
            }
        }
        return lines.map { $0.trailingSpacesRemoved }.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate var trailingSpacesRemoved: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
