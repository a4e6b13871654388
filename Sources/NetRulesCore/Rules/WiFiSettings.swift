/// The top-level `wifi:` map: how the Wi-Fi observer reads what changes between association events.
public struct WiFiSettings: Hashable, Sendable {
    /// How often `signal` is sampled while something reads it (a rule, a `watch` client).
    public var signalInterval: Duration

    /// The shortest `signal_interval` accepted: the kernel's reading averages a few beacons (a
    /// beacon is about 100 ms), so sampling faster shows nothing new and only costs wake-ups.
    public static let minimumSignalInterval: Duration = .seconds(1)

    public init(signalInterval: Duration = .seconds(5)) {
        self.signalInterval = signalInterval
    }
}
