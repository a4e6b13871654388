/// The name of one fact about the network, such as `ssid`, `gateway` or `hosts.intranet`.
///
/// Keys are dotted lower-case words. They are the shared vocabulary of conditions, timelines,
/// templates and `status --json`, so a key is spelled the same everywhere a user meets it.
public struct FactKey: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The key as users write it.
    public let rawValue: String

    /// Creates a key from its dotted spelling.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a key from a literal, so `"hosts.intranet"` can stand where a key is expected.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The key as users write it.
    public var description: String { rawValue }

    /// Orders keys by their spelling.
    public static func < (lhs: FactKey, rhs: FactKey) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The first dotted component: `hosts` for `hosts.intranet`.
    public var namespace: Substring {
        // The first run of characters other than `.` (the whole key when there is none), found
        // without the array `split` makes, and by byte (a `.` is one): a key's namespace is
        // asked for on every update.
        let bytes = rawValue.utf8
        guard let start = bytes.firstIndex(where: { $0 != UInt8(ascii: ".") }) else { return Substring(rawValue) }
        return rawValue[start..<(bytes[start...].firstIndex(of: UInt8(ascii: ".")) ?? bytes.endIndex)]
    }
}

extension FactKey {
    /// The Wi-Fi network name (exact bytes).
    public static let ssid: FactKey = "ssid"
    /// The access point's MAC, lower-case and colon-separated.
    public static let bssid: FactKey = "bssid"
    /// Received signal strength in dBm.
    public static let signal: FactKey = "signal"
    /// The Wi-Fi channel's frequency in MHz.
    public static let frequency: FactKey = "frequency"
    /// The Wi-Fi interface's name.
    public static let interface: FactKey = "interface"
    /// `online`, `portal` or `offline`.
    public static let connectivity: FactKey = "connectivity"
    /// Where a captive portal wants the user to log in.
    public static let portalURL: FactKey = "portal.url"
    /// The default IPv4 gateway.
    public static let gateway: FactKey = "gateway"
    /// The default IPv4 gateway's MAC address, from the neighbour table.
    public static let gatewayMAC: FactKey = "gateway.mac"
    /// The default IPv6 gateway.
    public static let gateway6: FactKey = "gateway6"
    /// The list of local addresses with their prefix length, e.g. `192.168.1.7/24`.
    public static let ip: FactKey = "ip"
    /// `wifi`, `wired` or `none`: the kind of the default route's interface.
    public static let network: FactKey = "network"
    /// The list of DNS servers.
    public static let dns: FactKey = "dns"

    /// The state (`up` or `down`) of the interface called `name`.
    public static func interfaceState(_ name: String) -> FactKey { FactKey("interfaces.\(name)") }

    /// The reachability (`reachable` or `unreachable`) of the host called `name`.
    public static func host(_ name: String) -> FactKey { FactKey("hosts.\(name)") }

    /// Every fixed key of the built-in vocabulary, in the order `status` shows them.
    public static let vocabulary: [FactKey] = [
        .ssid, .bssid, .signal, .frequency, .interface, .connectivity, .portalURL,
        .gateway, .gatewayMAC, .gateway6, .ip, .network, .dns, .place,
    ]

    /// Namespaces whose members are named by the user or the system (`hosts.NAME`, `interfaces.NAME`).
    public static let vocabularyNamespaces: [String] = ["hosts", "interfaces", "places"]
}
