/// The top-level `wifi:` map: where the Wi-Fi facts come from, and how the Wi-Fi observer reads
/// what changes between association events.
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

    /// `wifi.source`: which observer serves the Wi-Fi facts.
    public var source: Source

    /// How often `signal` is sampled while something reads it (a rule, a `watch` client).
    public var signalInterval: Duration

    /// The shortest `signal_interval` accepted: the kernel's reading averages a few beacons (a
    /// beacon is about 100 ms), so sampling faster shows nothing new and only costs wake-ups.
    public static let minimumSignalInterval: Duration = .seconds(1)

    /// Creates the settings; by default the source is `auto` and `signal` is sampled every 5 seconds.
    public init(source: Source = .auto, signalInterval: Duration = .seconds(5)) {
        self.source = source
        self.signalInterval = signalInterval
    }
}
