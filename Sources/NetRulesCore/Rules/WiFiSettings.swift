/// The `wifi:` section of a rule file.
public struct WiFiSettings: Hashable, Sendable {
    /// Which observer serves `ssid`, `bssid`, `signal`, `frequency` and `interface`.
    public enum Source: String, Hashable, Sendable, CaseIterable {
        /// nl80211 where the kernel has it, NetworkManager otherwise.
        case auto
        case nl80211
        case networkmanager
        /// Neither: the facts come from an observer plugin, or not at all.
        case none
    }

    public var source: Source

    public init(source: Source = .auto) {
        self.source = source
    }
}
