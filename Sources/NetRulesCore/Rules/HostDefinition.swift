/// A host the probes watch, from the top-level `hosts:` map or written inline in a condition.
public struct HostDefinition: Hashable, Sendable {
    /// The name rules use (`intranet`), or the address itself when written inline.
    public var name: String
    /// An IP address or a DNS name.
    public var address: String
    /// A TCP port: probe by connecting instead of by ICMP echo.
    public var port: Int?
    /// How often a round of probes runs.
    public var interval: Duration
    /// How long one try waits for its answer.
    public var timeout: Duration
    /// Tries per round; the host is unreachable when all of them fail.
    public var tries: Int

    /// The defaults of the iOS notes this project grew from: 0.5 s per packet, 3 tries.
    public static let defaultTimeout: Duration = .milliseconds(500)
    /// Tries per round when the rule file gives none.
    public static let defaultTries = 3
    /// The time between rounds when the rule file gives none: 10 seconds.
    public static let defaultInterval: Duration = .seconds(10)

    /// Creates a host the probes watch; unset values take the defaults above.
    ///
    /// - Parameters:
    ///   - name: the name rules use in `reachable:` and `hosts.NAME`.
    ///   - port: a TCP port to probe by connecting, or nil to probe by ICMP echo.
    public init(
        name: String, address: String, port: Int? = nil, interval: Duration = HostDefinition.defaultInterval,
        timeout: Duration = HostDefinition.defaultTimeout, tries: Int = HostDefinition.defaultTries
    ) {
        self.name = name
        self.address = address
        self.port = port
        self.interval = interval
        self.timeout = timeout
        self.tries = tries
    }

    /// Whether `character` may stand in an inline host's name: a letter or digit (of any script), `.`, `-`, `_`.
    private static func isNameCharacter(_ character: Character) -> Bool {
        // ASCII first: Unicode's letter and number properties are a table look-up per character.
        if let ascii = character.asciiValue {
            return (0x61...0x7A).contains(ascii) || (0x41...0x5A).contains(ascii) || (0x30...0x39).contains(ascii)
                || ascii == 0x2E || ascii == 0x2D || ascii == 0x5F
        }
        return character.isLetter || character.isNumber
    }

    /// Parses an inline `HOST` or `HOST:PORT` (IPv6 as `[::1]:443`).
    public init?(inline text: String) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard IPAddress(host)?.isV6 == true else { return nil }
            if rest.isEmpty {
                self.init(name: text, address: host)
            } else {
                guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else {
                    return nil
                }
                self.init(name: text, address: host, port: port)
            }
            return
        }
        if IPAddress(text)?.isV6 == true {
            self.init(name: text, address: text)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2,
            host.allSatisfy(Self.isNameCharacter)
        else { return nil }
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
            self.init(name: text, address: String(host), port: port)
        } else {
            self.init(name: text, address: String(host))
        }
    }
}
