@preconcurrency import Glibc
import NetRulesCore

/// `netrules status [--json]`: one snapshot of the network.
public enum StatusCommand {
    /// Prints the snapshot.
    ///
    /// Human output lists every fact under its rule key, aligned, with each interface's MAC,
    /// IPv4 netmask and broadcast, and IPv6 addresses beneath it. `--json` prints one document,
    /// `{"version":1,"facts":{…},"interfaces":{…}}`, whose `facts` keys are the fact keys; unknown
    /// facts are left out and absent ones are `null`.
    /// - Parameters:
    ///   - json: print JSON instead of text.
    ///   - output: receives stdout text (with newlines).
    ///   - errorOutput: receives diagnostics; standard error by default.
    /// - Returns: the exit code: 0, or 1 when the network cannot be read.
    public static func run(
        json: Bool,
        output: @Sendable (String) -> Void,
        errorOutput: @Sendable (String) -> Void = { fputs($0, stderr) }
    ) async -> Int32 {
        let snapshot: NetworkSnapshot
        do {
            snapshot = try NetworkSnapshot.current()
        } catch {
            errorOutput("Error: cannot read the network state: \(error)\n")
            return 1
        }
        output(json ? renderJSON(snapshot) + "\n" : renderText(snapshot))
        return 0
    }

    /// The `--json` document.
    static func renderJSON(_ snapshot: NetworkSnapshot) -> String {
        var facts: [String: JSONValue] = [:]
        for (key, state) in snapshot.facts {
            if let encoded = FactJSON.encode(state) { facts[key.rawValue] = encoded }
        }
        var interfaces: [String: JSONValue] = [:]
        for interface in snapshot.interfaces {
            let ipv4 = interface.ipv4.map { address in
                FactJSON.object([
                    "address": .string(address.cidr),
                    "netmask": .string(address.netmask),
                    "broadcast": address.broadcast.map(JSONValue.string) ?? .null,
                ])
            }
            interfaces[interface.name] = FactJSON.object([
                "state": .string(interface.state),
                "mac": interface.mac.map(JSONValue.string) ?? .null,
                "ipv4": .array(ipv4),
                "ipv6": .array(interface.ipv6.map(JSONValue.string)),
            ])
        }
        // `version` first, as in every other document; the fact keys inside are sorted.
        return JSONValue.object([
            ("version", .number(1)), ("facts", FactJSON.object(facts)), ("interfaces", FactJSON.object(interfaces)),
        ]).compact
    }

    /// The human text: one fact per line, keys in a column, interface details indented beneath.
    static func renderText(_ snapshot: NetworkSnapshot) -> String {
        let order: [FactKey] = [
            .ip, .gateway, .gatewayMAC, .gateway6, .dns, .network, .ssid, .bssid, .signal, .frequency, .interface,
        ]
        let interfaceKeys = snapshot.interfaces.map { FactKey.interfaceState($0.name) }
        let width = (interfaceKeys + order).map(\.rawValue.count).max()! + 2
        func pad(_ text: String) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
        func show(_ key: FactKey) -> String {
            let state = snapshot.facts[key] ?? .unknown
            switch state {
            case .value(.list(let items)):
                return items.isEmpty ? "none" : items.map(\.plainText).joined(separator: ", ")
            case .value(let value): return value.plainText
            case .absent: return "none"
            case .unknown:
                return [.ssid, .bssid, .signal, .frequency, .interface].contains(key)
                    ? "unknown (no Wi-Fi information from the kernel)" : "unknown"
            }
        }
        var lines: [String] = []
        for interface in snapshot.interfaces {
            lines.append(
                pad("interfaces.\(interface.name)") + interface.state + (interface.mac.map { "  mac \($0)" } ?? ""))
            for address in interface.ipv4 {
                lines.append(
                    pad("") + "inet  \(address.cidr)  netmask \(address.netmask)"
                        + (address.broadcast.map { "  broadcast \($0)" } ?? ""))
            }
            for address in interface.ipv6 { lines.append(pad("") + "inet6 \(address)") }
        }
        for key in order {
            var text = show(key)
            if key == .gateway, snapshot.facts[key]?.value != nil, let via = snapshot.gatewayInterface {
                text += " via \(via)"
            }
            if key == .signal, snapshot.facts[key]?.value != nil { text += " dBm" }
            if key == .frequency, snapshot.facts[key]?.value != nil { text += " MHz" }
            lines.append(pad(key.rawValue) + text)
        }
        return lines.map { $0.trailingSpacesRemoved }.joined(separator: "\n") + "\n"
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
