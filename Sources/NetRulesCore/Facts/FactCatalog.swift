/// What every built-in fact is: its type and meaning, for `netrules facts`, completions and docs.
public enum FactCatalog {
    /// One built-in fact, or a family of them such as `hosts.NAME`, as `netrules facts` lists it.
    public struct Entry: Sendable, Hashable {
        /// The key, or a pattern such as `interfaces.NAME`.
        public var key: String
        /// The value's type in words, with its unit: `number (dBm)`, `online | portal | offline`.
        public var type: String
        /// What the fact means, as a phrase: `the Wi-Fi network's name`.
        public var meaning: String
    }

    /// The built-in facts, in the order `facts` lists them.
    public static let builtIn: [Entry] = [
        Entry(key: "ssid", type: "text (any 32 bytes)", meaning: "the Wi-Fi network's name"),
        Entry(key: "bssid", type: "MAC address", meaning: "the access point's MAC"),
        Entry(key: "signal", type: "number (dBm)", meaning: "the Wi-Fi signal strength"),
        Entry(key: "signal.quality", type: "number (percent)", meaning: "the Wi-Fi signal as NetworkManager rates it"),
        Entry(key: "frequency", type: "number (MHz)", meaning: "the Wi-Fi channel's frequency"),
        Entry(key: "interface", type: "text", meaning: "the Wi-Fi interface's name"),
        Entry(key: "connectivity", type: "online | portal | offline", meaning: "the captive-portal probe's verdict"),
        Entry(key: "portal.url", type: "text (URL)", meaning: "where a captive portal wants you to log in"),
        Entry(key: "gateway", type: "IP address", meaning: "the default IPv4 gateway"),
        Entry(key: "gateway.mac", type: "MAC address", meaning: "the IPv4 gateway's MAC, from the neighbour table"),
        Entry(key: "gateway6", type: "IP address", meaning: "the default IPv6 gateway"),
        Entry(key: "ip", type: "list of ADDRESS/PREFIX", meaning: "the local addresses"),
        Entry(key: "network", type: "wifi | wired | none", meaning: "the kind of the default route's interface"),
        Entry(key: "dns", type: "list of IP addresses", meaning: "the DNS servers"),
        Entry(key: "connection", type: "text", meaning: "NetworkManager's primary connection's name"),
        Entry(key: "connection.uuid", type: "text", meaning: "its UUID"),
        Entry(key: "connection.type", type: "text", meaning: "its type (802-11-wireless, 802-3-ethernet, vpn, …)"),
        Entry(
            key: "vpn", type: "list of names",
            meaning: "the VPNs up: NetworkManager's VPN connections, then WireGuard and point-to-point tun interfaces"),
        Entry(
            key: "nm.connectivity", type: "none | portal | limited | full | unknown",
            meaning: "NetworkManager's own connectivity verdict"),
        Entry(key: "interfaces.NAME", type: "up | down", meaning: "the state of the interface NAME"),
        Entry(
            key: "hosts.NAME", type: "reachable | unreachable", meaning: "the probe's latest round for the host NAME"),
        Entry(key: "place", type: "text (a place's name)", meaning: "the first place of 'places:' that is here"),
        Entry(
            key: "places.NAME", type: "here | claimed | away",
            meaning: "whether the place NAME's condition holds and its proofs passed"),
        Entry(
            key: "places.NAME.proof", type: "pending | passed | failed",
            meaning: "where the place NAME's proofs stand (null while its condition is false)"),
        Entry(key: "places.NAME.reason", type: "text", meaning: "why the place NAME's last proof failed"),
        Entry(
            key: "mqtt.NAME", type: "text, number or true/false",
            meaning: "the last message on the topic mqtt: subscribe: names for NAME (unknown while disconnected)"),
    ]

    /// The fixed keys of the catalog, in its order (`interfaces.NAME` and `hosts.NAME` left out):
    /// the vocabulary and NetworkManager's facts (`connection`, `vpn`, `nm.connectivity`, …).
    public static let fixedKeys: [FactKey] = builtIn.filter { !$0.key.contains(".NAME") }.map { FactKey($0.key) }
    /// `fixedKeys`, to look one up (every update of a plugin asks).
    static let fixedKeySet = Set(fixedKeys)

    /// The catalog entry for a key (`interfaces.wg0` finds `interfaces.NAME`).
    public static func entry(for key: FactKey) -> Entry? {
        if let exact = builtIn.first(where: { $0.key == key.rawValue }) { return exact }
        let parts = key.rawValue.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0] == "places" {
            return builtIn.first { $0.key == "places.NAME.\(parts[2])" }
        }
        let namespace = String(key.namespace)
        return builtIn.first { $0.key == namespace + ".NAME" }
    }
}
