/// `ssid: NAME`, `ssid: [NAMES]` or `ssid: { matches: REGEX }`.
///
/// Names compare as exact bytes; a missing SSID (not on Wi-Fi) is false, an unknown one unknown.
public struct SSIDCondition: Condition {
    public enum Test: Sendable {
        case oneOf([[UInt8]])
        case matches(TextPattern)
    }

    public var test: Test

    public init(_ test: Test) { self.test = test }

    public var readKeys: [FactKey] { [.ssid] }

    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[.ssid]) { value in
            switch test {
            case .oneOf(let names):
                // Compare in place: no array is built from the fact on this hot path.
                switch value {
                case .string(let s):
                    let count = s.utf8.count
                    return names.contains { $0.count == count && s.utf8.elementsEqual($0) }
                case .bytes(let b): return names.contains(b)
                default: return false
                }
            case .matches(let pattern):
                return pattern.matches(value.plainText)
            }
        }
    }

    public var description: String {
        switch test {
        case .oneOf(let names): "ssid in [\(names.map { FactValue.escaped($0) }.joined(separator: ", "))]"
        case .matches(let pattern): "ssid matches /\(pattern.source)/"
        }
    }
}

/// `bssid: MAC` or `[MACS]`, both sides normalised.
public struct BSSIDCondition: Condition {
    public var accepted: Set<MACAddress>

    public init(_ accepted: Set<MACAddress>) { self.accepted = accepted }

    public var readKeys: [FactKey] { [.bssid] }

    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[.bssid]) { value in
            guard let text = value.stringValue, let mac = MACAddress(text) else { return false }
            return accepted.contains(mac)
        }
    }

    public var description: String {
        "bssid in [\(accepted.map(\.description).sorted().joined(separator: ", "))]"
    }
}

/// A fact compared with a set of words: `connectivity: online`, `portal: detected`, `network: wifi`.
public struct FactInSetCondition: Condition {
    public var key: FactKey
    public var accepted: Set<String>
    /// How the condition was written, for `explain`.
    public var spelling: String

    public init(key: FactKey, accepted: Set<String>, spelling: String) {
        self.key = key
        self.accepted = accepted
        self.spelling = spelling
    }

    public var readKeys: [FactKey] { [key] }

    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[key]) { value in accepted.contains(value.plainText) }
    }

    public var description: String { spelling }
}

/// `reachable: HOST` / `unreachable: HOST`, over the `hosts.HOST` fact the probes report.
public struct HostCondition: Condition {
    public let host: String
    public let wantsReachable: Bool
    /// `hosts.HOST`, built once rather than on every evaluation.
    private let key: FactKey

    public init(host: String, wantsReachable: Bool) {
        self.host = host
        self.wantsReachable = wantsReachable
        self.key = .host(host)
    }

    public var readKeys: [FactKey] { [key] }

    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[key]) { value in
            (value.plainText == "reachable") == wantsReachable
        }
    }

    public var description: String { "\(wantsReachable ? "reachable" : "unreachable"): \(host)" }
}

/// `interface: { name: wg0, state: up | down }`. An interface that does not exist counts as down.
public struct InterfaceCondition: Condition {
    public let name: String
    public let wantsUp: Bool
    private let key: FactKey

    public init(name: String, wantsUp: Bool) {
        self.name = name
        self.wantsUp = wantsUp
        self.key = .interfaceState(name)
    }

    public var readKeys: [FactKey] { [key] }

    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[key], absent: Truth(!wantsUp)) { value in
            (value.plainText == "up") == wantsUp
        }
    }

    public var description: String { "interface \(name) is \(wantsUp ? "up" : "down")" }
}

/// `gateway: IP | [IPs]`: the default gateway (IPv4 or IPv6, by the address's family) is one of these.
public struct GatewayCondition: Condition {
    public var accepted: Set<IPAddress>

    public init(_ accepted: Set<IPAddress>) { self.accepted = accepted }

    public var readKeys: [FactKey] {
        var keys: [FactKey] = []
        if accepted.contains(where: { !$0.isV6 }) { keys.append(.gateway) }
        if accepted.contains(where: \.isV6) { keys.append(.gateway6) }
        return keys
    }

    public func evaluate(_ facts: FactStore) -> Truth {
        var result = Truth.false
        for key in readKeys {
            result =
                result
                || NetRulesCore.evaluate(facts[key]) { value in
                    guard let ip = IPAddress(value.plainText) else { return false }
                    return accepted.contains(ip)
                }
        }
        return result
    }

    public var description: String { "gateway in [\(accepted.map(\.description).sorted().joined(separator: ", "))]" }
}

/// `address: CIDR | [CIDRs]`: some local address lies inside one of the blocks.
public struct AddressCondition: Condition {
    public var blocks: [CIDR]

    public init(_ blocks: [CIDR]) { self.blocks = blocks }

    public var readKeys: [FactKey] { [.ip] }

    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[.ip]) { value in
            value.elements.contains { element in
                guard let local = CIDR(element.plainText) else { return false }
                return blocks.contains { $0.contains(local.address) }
            }
        }
    }

    public var description: String { "address in [\(blocks.map(\.description).joined(separator: ", "))]" }
}

/// A numeric or textual test on any fact: `signal: { above: -70 }`, `fact: { key: vpn.connected, equals: true }`.
public struct FactTestCondition: Condition {
    public enum Test: Sendable {
        case equals(FactValue)
        case oneOf([FactValue])
        case matches(TextPattern)
        case above(Double)
        case below(Double)
        /// One of the fact's addresses lies in one of these blocks (address facts only).
        case inSubnet([CIDR])
    }

    public var key: FactKey
    public var tests: [Test]

    public init(key: FactKey, tests: [Test]) {
        self.key = key
        self.tests = tests
    }

    public var readKeys: [FactKey] { [key] }

    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[key]) { value in tests.allSatisfy { passes(value, $0) } }
    }

    func passes(_ value: FactValue, _ test: Test) -> Bool {
        switch test {
        case .equals(let expected): return typed(value, equals: expected)
        case .oneOf(let options): return options.contains { typed(value, equals: $0) }
        case .inSubnet(let blocks):
            return value.elements.contains { element in
                guard let address = key.address(in: element.plainText) else { return false }
                return blocks.contains { $0.contains(address) }
            }
        case .matches(let pattern): return pattern.matches(value.plainText)
        case .above(let n): return value.numberValue.map { $0 > n } ?? false
        case .below(let n): return value.numberValue.map { $0 < n } ?? false
        }
    }

    /// MAC and address facts compare as MACs and addresses (any spelling of the same value is
    /// equal; for a list, such as `dns`, any element may match); the rest loosely.
    func typed(_ value: FactValue, equals expected: FactValue) -> Bool {
        switch key.kind {
        case .text:
            return Self.loosely(value, equals: expected)
        case .mac:
            return value.elements.contains {
                key.normalized($0.plainText).map { $0 == key.normalized(expected.plainText) } ?? false
            }
        case .address:
            guard let wanted = key.address(in: expected.plainText) else { return false }
            return value.elements.contains { key.address(in: $0.plainText) == wanted }
        }
    }

    /// Plugin facts arrive as JSON: `true`, `"true"` and `1` vs `1.0` should all compare as a user means.
    static func loosely(_ value: FactValue, equals expected: FactValue) -> Bool {
        if value == expected { return true }
        if let a = value.numberValue, let b = expected.numberValue { return a == b }
        return value.plainText == expected.plainText
    }

    public var description: String {
        let parts = tests.map { test -> String in
            switch test {
            case .equals(let v): "equals \(v.plainText)"
            case .oneOf(let vs): "in [\(vs.map(\.plainText).joined(separator: ", "))]"
            case .matches(let p): "matches /\(p.source)/"
            case .above(let n): "above \(FactValue.format(n))"
            case .below(let n): "below \(FactValue.format(n))"
            case .inSubnet(let blocks): "in_subnet [\(blocks.map(\.description).joined(separator: ", "))]"
            }
        }
        return "\(key) \(parts.joined(separator: " and "))"
    }
}
