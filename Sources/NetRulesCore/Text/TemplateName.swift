/// What a `{{placeholder}}` stands for.
///
/// Known names: every built-in fact of `FactCatalog` (`ssid`, `bssid`, `gateway`, `connection`, …),
/// `hosts.NAME`, `interfaces.NAME`, `mqtt.NAME` (a message of `mqtt:`'s `subscribe:`), `fact.KEY`
/// for any fact a plugin reports, `rule`, `edge`,
/// `time` (RFC 3339 in local time with its offset, `TZ` honoured), `time.utc` (RFC 3339 in UTC) and
/// `env.NAME` (the daemon's environment, for secrets).
public enum TemplateName: Hashable, Sendable, CustomStringConvertible {
    case fact(FactKey)
    case rule
    case edge
    /// `{{time}}`: the firing's local time with its offset, `2026-12-02T07:00:10+01:00`.
    case time
    /// `{{time.utc}}`: the same instant in UTC, `2026-12-02T06:00:10Z`.
    case utcTime
    case environment(String)

    /// Parses a placeholder's name; nil when it is not a known name.
    public init?(_ text: String) {
        switch text {
        case "rule": self = .rule
        case "edge": self = .edge
        case "time": self = .time
        case "time.utc": self = .utcTime
        default:
            if let rest = text.dropPrefix("env."), TemplateName.isIdentifier(rest, allowDots: false) {
                self = .environment(rest)
            } else if let rest = text.dropPrefix("fact."), TemplateName.isIdentifier(rest, allowDots: true) {
                self = .fact(FactKey(rest))
            } else if let rest = text.dropPrefix("mqtt."), TemplateName.isIdentifier(rest, allowDots: false) {
                self = .fact(FactKey(text))
            } else if FactCatalog.fixedKeys.contains(FactKey(text)) {
                self = .fact(FactKey(text))
            } else if let ns = FactKey.vocabularyNamespaces.first(where: { text.hasPrefix($0 + ".") }),
                text.count > ns.count + 1
            {
                self = .fact(FactKey(text))
            } else {
                return nil
            }
        }
    }

    /// The name for messages: `rule`, `env.NAME`, or the fact's key (a plugin fact without its
    /// `fact.` prefix).
    public var description: String {
        switch self {
        case .fact(let key): key.rawValue
        case .rule: "rule"
        case .edge: "edge"
        case .time: "time"
        case .utcTime: "time.utc"
        case .environment(let name): "env.\(name)"
        }
    }

    /// Every fixed name, for suggestions and documentation.
    public static var fixedNames: [String] {
        FactCatalog.fixedKeys.map(\.rawValue) + ["rule", "edge", "time", "time.utc"]
    }

    /// A "did you mean" for a misspelt name.
    public static func suggestion(for text: String) -> String? {
        guard let best = EditDistance.closest(to: text, among: fixedNames) else {
            return
                "known names: \(fixedNames.joined(separator: ", ")), hosts.NAME, interfaces.NAME, mqtt.NAME, fact.KEY, env.NAME"
        }
        return "did you mean '\(best)'?"
    }

    static func isIdentifier(_ text: String, allowDots: Bool) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == ":"
                    || (allowDots && $0 == "."))
            }
    }
}

extension String {
    func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}

extension TemplateName {
    /// The environment variable a `run:` command can read the same value from: `NETRULES_SSID`
    /// for `{{ssid}}`, `NETRULES_HOSTS_INTRANET` for `{{hosts.intranet}}`, `NAME` for `{{env.NAME}}`.
    public var environmentVariable: String {
        switch self {
        case .fact(let key): key.environmentVariable
        case .rule: "NETRULES_RULE"
        case .edge: "NETRULES_EDGE"
        case .time: "NETRULES_TIME"
        case .utcTime: "NETRULES_TIME_UTC"
        case .environment(let name): name
        }
    }
}

extension FactKey {
    /// `NETRULES_` and the key upper-cased, with every character other than A–Z and 0–9 as `_`:
    /// `hosts.intranet` becomes `NETRULES_HOSTS_INTRANET`.
    public var environmentVariable: String {
        String(decoding: environmentVariableBytes, as: UTF8.self)
    }

    /// `environmentVariable` as bytes, for an environment entry.
    public var environmentVariableBytes: [UInt8] {
        var name = Array("NETRULES_".utf8)
        let raw = rawValue.utf8
        name.reserveCapacity(name.count + raw.count)
        guard raw.allSatisfy({ $0 < 0x80 }) else {
            // Upper-casing beyond ASCII can change the length ("ß" is "SS"): let String do it.
            for scalar in rawValue.uppercased().unicodeScalars {
                name.append(("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) ? UInt8(scalar.value) : 0x5F)
            }
            return name
        }
        for byte in raw {
            switch byte {
            case 0x41...0x5A, 0x30...0x39: name.append(byte)
            case 0x61...0x7A: name.append(byte - 0x20)
            default: name.append(0x5F)
            }
        }
        return name
    }
}
