/// `ssid: NAME`, `ssid: [NAMES]` or `ssid: { matches: REGEX }`.
///
/// Names compare as exact bytes; a missing SSID (not on Wi-Fi) is false, an unknown one unknown.
public struct SSIDCondition: Condition {
    /// How the SSID is compared: with a list of names as exact bytes, or with a regular expression.
    public enum Test: Sendable {
        case oneOf([[UInt8]])
        case matches(TextPattern)
    }

    /// The comparison the rule wrote.
    public var test: Test

    /// Creates an `ssid:` condition.
    public init(_ test: Test) { self.test = test }

    /// `ssid`.
    public var readKeys: [FactKey] { [.ssid] }

    /// Whether the SSID passes `test`: false when not on Wi-Fi, unknown while unreported.
    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[.ssid]) { value in
            switch test {
            case .oneOf(let names):
                // Compare in place: no array is built from the fact on this hot path.
                switch value {
                case .string(let s):
                    // Native strings are contiguous UTF-8: compare buffers, not a view's bytes one by one.
                    let count = s.utf8.count
                    return s.utf8.withContiguousStorageIfAvailable { bytes in
                        names.contains { $0.count == count && $0.withUnsafeBufferPointer { bytes.elementsEqual($0) } }
                    } ?? names.contains { $0.count == count && s.utf8.elementsEqual($0) }
                case .bytes(let b): return names.contains(b)
                default: return false
                }
            case .matches(let pattern):
                return pattern.matches(value.plainText)
            }
        }
    }

    /// The test as `explain` shows it: `ssid in [Office]` or `ssid matches /Guest-.*/`.
    public var description: String {
        switch test {
        case .oneOf(let names): "ssid in [\(names.map { TerminalText.escaped(bytes: $0) }.joined(separator: ", "))]"
        case .matches(let pattern): "ssid matches /\(pattern.source)/"
        }
    }
}

/// `bssid: MAC` or `[MACS]`, both sides normalised.
public struct BSSIDCondition: Condition {
    /// The access points' MACs; the current BSSID must be one of them.
    public var accepted: Set<MACAddress>

    /// Creates a `bssid:` condition accepting these access points.
    public init(_ accepted: Set<MACAddress>) { self.accepted = accepted }

    /// `bssid`.
    public var readKeys: [FactKey] { [.bssid] }

    /// Whether the current BSSID is accepted: false when not on Wi-Fi or not a MAC, unknown while
    /// unreported.
    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[.bssid]) { value in
            guard let text = value.stringValue, let mac = MACAddress(text) else { return false }
            return accepted.contains(mac)
        }
    }

    /// The accepted MACs, sorted, as `explain` shows them.
    public var description: String {
        "bssid in [\(accepted.map(\.description).sorted().joined(separator: ", "))]"
    }
}

/// A fact compared with a set of words: `connectivity: online`, `portal: detected`, `network: wifi`.
public struct FactInSetCondition: Condition {
    /// The fact compared, such as `connectivity` or `network`.
    public var key: FactKey
    /// The words that satisfy the condition; the fact's text must equal one of them exactly.
    public var accepted: Set<String>
    /// How the condition was written, for `explain`.
    public var spelling: String

    /// Creates a condition that is true when `key`'s text is one of `accepted`.
    ///
    /// - Parameters:
    ///   - spelling: the condition as written (`connectivity: online`), shown by `explain`.
    public init(key: FactKey, accepted: Set<String>, spelling: String) {
        self.key = key
        self.accepted = accepted
        self.spelling = spelling
    }

    /// `key`.
    public var readKeys: [FactKey] { [key] }

    /// Whether the fact's text is one of `accepted`; false when absent, unknown while unreported.
    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[key]) { value in accepted.contains(value.plainText) }
    }

    /// The condition as written.
    public var description: String { spelling }
}

/// `reachable: HOST` / `unreachable: HOST`, over the `hosts.HOST` fact the probes report.
public struct HostCondition: Condition {
    /// The host's name: a name from `hosts:`, or the `HOST` or `HOST:PORT` written inline.
    public let host: String
    /// True for `reachable:`, false for `unreachable:`.
    public let wantsReachable: Bool
    /// `hosts.HOST`, built once rather than on every evaluation.
    private let key: FactKey

    /// Creates `reachable: host` (`wantsReachable` true) or `unreachable: host`.
    public init(host: String, wantsReachable: Bool) {
        self.host = host
        self.wantsReachable = wantsReachable
        self.key = .host(host)
    }

    /// `hosts.HOST`.
    public var readKeys: [FactKey] { [key] }

    /// Whether the latest probe round agrees with `wantsReachable`; unknown before the first round.
    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[key]) { value in
            (value.plainText == "reachable") == wantsReachable
        }
    }

    /// `reachable: HOST` or `unreachable: HOST`.
    public var description: String { "\(wantsReachable ? "reachable" : "unreachable"): \(host)" }
}

/// `interface: { name: wg0, state: up | down }`. An interface that does not exist counts as down.
public struct InterfaceCondition: Condition {
    /// The interface's name, such as `wg0`.
    public let name: String
    /// True for `state: up`, false for `state: down`.
    public let wantsUp: Bool
    private let key: FactKey

    /// Creates a condition on the interface `name` being up (`wantsUp` true) or down.
    public init(name: String, wantsUp: Bool) {
        self.name = name
        self.wantsUp = wantsUp
        self.key = .interfaceState(name)
    }

    /// `interfaces.NAME`.
    public var readKeys: [FactKey] { [key] }

    /// Whether the interface is in the wanted state; an interface that does not exist is down.
    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[key], absent: Truth(!wantsUp)) { value in
            (value.plainText == "up") == wantsUp
        }
    }

    /// `interface NAME is up` or `interface NAME is down`.
    public var description: String { "interface \(name) is \(wantsUp ? "up" : "down")" }
}

/// `gateway: IP | [IPs]`: the default gateway (IPv4 or IPv6, by the address's family) is one of these.
public struct GatewayCondition: Condition {
    /// The gateways accepted; IPv4 ones are compared with `gateway`, IPv6 ones with `gateway6`.
    public var accepted: Set<IPAddress>

    /// Creates a `gateway:` condition accepting these addresses.
    public init(_ accepted: Set<IPAddress>) { self.accepted = accepted }

    /// `gateway` when an IPv4 address is accepted, and `gateway6` when an IPv6 one is.
    public var readKeys: [FactKey] {
        var keys: [FactKey] = []
        if accepted.contains(where: { !$0.isV6 }) { keys.append(.gateway) }
        if accepted.contains(where: \.isV6) { keys.append(.gateway6) }
        return keys
    }

    /// Whether the default gateway of either family is accepted (true if either is, in Kleene logic).
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

    /// The accepted gateways, sorted, as `explain` shows them.
    public var description: String { "gateway in [\(accepted.map(\.description).sorted().joined(separator: ", "))]" }
}

/// `address: CIDR | [CIDRs]`: some local address lies inside one of the blocks.
public struct AddressCondition: Condition {
    /// The address blocks; a local address inside any of them satisfies the condition.
    public var blocks: [CIDR]

    /// Creates an `address:` condition over these blocks.
    public init(_ blocks: [CIDR]) { self.blocks = blocks }

    /// `ip`.
    public var readKeys: [FactKey] { [.ip] }

    /// Whether some local address in `ip` lies inside one of `blocks`.
    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[.ip]) { value in
            value.elements.contains { element in
                guard let local = CIDR(element.plainText) else { return false }
                return blocks.contains { $0.contains(local.address) }
            }
        }
    }

    /// The blocks as `explain` shows them.
    public var description: String { "address in [\(blocks.map(\.description).joined(separator: ", "))]" }
}

/// A numeric or textual test on any fact: `signal: { above: -70 }`, `fact: { key: vpn.connected, equals: true }`.
public struct FactTestCondition: Condition {
    /// One test on the fact's value; a condition holds only when all of its tests pass.
    public enum Test: Sendable {
        case equals(FactValue)
        case oneOf([FactValue])
        case matches(TextPattern)
        case above(Double)
        case below(Double)
        /// One of the fact's addresses lies in one of these blocks (address facts only).
        case inSubnet([CIDR])
    }

    /// The fact tested: any key, built-in or reported by a plugin.
    public var key: FactKey
    /// The tests, all of which must pass (`above` and `below` together make a range).
    public var tests: [Test]

    /// Creates a condition that is true when `key`'s value passes every test in `tests`.
    public init(key: FactKey, tests: [Test]) {
        self.key = key
        self.tests = tests
    }

    /// `key`.
    public var readKeys: [FactKey] { [key] }

    /// Whether the value passes every test: MACs and addresses compare as such, other values loosely
    /// (`1` equals `1.0`, `true` equals `"true"`).
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

    /// The key and its tests, such as `signal above -70 and below -40`.
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
