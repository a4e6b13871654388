@preconcurrency import Glibc

/// Tells wireless interfaces from wired ones through sysfs.
enum WirelessInterfaces {
    /// Whether `/sys/class/net/NAME/wireless` or `/sys/class/net/NAME/phy80211` exists.
    ///
    /// sysfs shows the interfaces of the namespace it was mounted in; inside a test namespace the
    /// lookup fails and the interface counts as wired, which is what a veth is.
    static func isWireless(_ name: String, sysfsRoot: String = "/sys/class/net") -> Bool {
        guard !name.contains("/"), !name.isEmpty else { return false }
        return access("\(sysfsRoot)/\(name)/wireless", F_OK) == 0 || access("\(sysfsRoot)/\(name)/phy80211", F_OK) == 0
    }

    /// The wireless names among `names`.
    static func filter(_ names: some Sequence<String>) -> Set<String> {
        Set(names.filter { isWireless($0) })
    }
}
