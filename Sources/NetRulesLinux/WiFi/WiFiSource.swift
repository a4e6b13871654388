/// Which observer serves the Wi-Fi facts (`ssid`, `bssid`, `signal`, `frequency`, `interface`).
///
/// `auto` (the default): nl80211 where the kernel has it (it reports the radio's own view, and
/// `signal` in dBm), NetworkManager otherwise (containers, sandboxes, kernels without cfg80211);
/// NetworkManager's connection facts (`connection`, `vpn`, `nm.connectivity`, …) come from it
/// whenever it is on the bus, whatever the source.
package enum WiFiSource: String, Sendable, CaseIterable {
    case auto
    case nl80211
    case networkmanager
    case none

    /// Whether this kernel answers for the nl80211 generic-netlink family.
    // Any failure to open the nl80211 family (ENOENT: not in this kernel, EPERM, EMFILE) means the
    // kernel will not answer for Wi-Fi, which is the question.
    package static var kernelHasNL80211: Bool { (try? NL80211Client.open()) != nil }

    /// Whether the nl80211 observer should report the Wi-Fi facts.
    package func usesNL80211(kernelHasNL80211: Bool) -> Bool {
        switch self {
        case .auto: kernelHasNL80211
        case .nl80211: true
        case .networkmanager, .none: false
        }
    }

    /// Whether NetworkManager should report the Wi-Fi facts.
    package func usesNetworkManager(kernelHasNL80211: Bool) -> Bool {
        switch self {
        case .auto: !kernelHasNL80211
        case .networkmanager: true
        case .nl80211, .none: false
        }
    }
}
