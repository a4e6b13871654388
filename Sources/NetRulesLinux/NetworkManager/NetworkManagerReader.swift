import NetRulesCore

/// Reads a `NetworkManagerSnapshot` from NetworkManager's D-Bus API.
///
/// Follows what NetworkManager's own clients read: the manager's `PrimaryConnection` (else the
/// active connection that carries the default route), `ActiveConnections` for VPNs,
/// `Connectivity`; the primary Wi-Fi device's `ActiveAccessPoint`, falling back to its active
/// connection's `SpecificObject`.
enum NetworkManagerReader {
    static let service = "org.freedesktop.NetworkManager"
    static let managerPath = "/org/freedesktop/NetworkManager"
    static let managerInterface = "org.freedesktop.NetworkManager"
    static let activeInterface = "org.freedesktop.NetworkManager.Connection.Active"
    static let deviceInterface = "org.freedesktop.NetworkManager.Device"
    static let wirelessInterface = "org.freedesktop.NetworkManager.Device.Wireless"
    static let accessPointInterface = "org.freedesktop.NetworkManager.AccessPoint"
    /// `NM_DEVICE_TYPE_WIFI`.
    static let wifiDeviceType: Int64 = 2

    /// Whether NetworkManager owns its name on the bus.
    static func isRunning(_ bus: DBusConnection) throws(DBusConnection.Failure) -> Bool {
        let reply = try bus.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
            arguments: [service])
        return reply.first?.boolValue ?? false
    }

    static func read(_ bus: DBusConnection) throws(DBusConnection.Failure) -> NetworkManagerSnapshot {
        var snapshot = NetworkManagerSnapshot()
        let manager = try bus.properties(service, managerPath, managerInterface)
        snapshot.connectivity = manager["Connectivity"]?.integerValue
        for path in manager["ActiveConnections"]?.objectPaths ?? [] where path != "/" {
            // An active connection that went between listing and reading (deactivated) is not active
            // any more; the manager's own properties, read above, still throw.
            guard let p = try? bus.properties(service, path, activeInterface) else { continue }
            snapshot.active.append(
                NetworkManagerSnapshot.ActiveConnection(
                    path: path, id: p["Id"]?.stringValue ?? "", uuid: p["Uuid"]?.stringValue ?? "",
                    type: p["Type"]?.stringValue ?? "",
                    vpn: p["Vpn"]?.boolValue ?? (p["Type"]?.stringValue == "vpn"),
                    devices: p["Devices"]?.objectPaths ?? [],
                    specificObject: p["SpecificObject"]?.stringValue.flatMap { $0 == "/" ? nil : $0 },
                    isDefault: p["Default"]?.boolValue ?? false))
        }
        let primaryPath = manager["PrimaryConnection"]?.stringValue
        snapshot.primary =
            snapshot.active.first { $0.path == primaryPath }
            ?? snapshot.active.first { $0.isDefault && !$0.vpn } ?? snapshot.active.first { !$0.vpn }

        // The Wi-Fi device: the primary connection's, else the first connected one.
        var wifiDevices: [(path: String, properties: [String: DBusValue])] = []
        for path in manager["Devices"]?.objectPaths ?? [] {
            // A device that went between listing and reading (unplugged) is not a Wi-Fi device any
            // more.
            guard let device = try? bus.properties(service, path, deviceInterface),
                device["DeviceType"]?.integerValue == wifiDeviceType
            else { continue }
            wifiDevices.append((path, device))
        }
        let connected = wifiDevices.filter { ($0.properties["ActiveConnection"]?.stringValue ?? "/") != "/" }
        guard
            let device = connected.first(where: { snapshot.primary?.devices.contains($0.path) == true })
                ?? connected.first
        else { return snapshot }
        snapshot.wifiInterface = device.properties["Interface"]?.stringValue
        // An older NM without ActiveAccessPoint on the device falls back to the connection's
        // SpecificObject just below.
        var accessPoint = (try? bus.property(service, device.path, wirelessInterface, "ActiveAccessPoint"))?
            .stringValue
        if accessPoint == nil || accessPoint == "/" {
            let activePath = device.properties["ActiveConnection"]?.stringValue
            accessPoint = snapshot.active.first { $0.path == activePath }?.specificObject
        }
        if let accessPoint, accessPoint != "/",
            // An access point that went between the two calls (NM removes it on roaming) leaves the
            // Wi-Fi facts without one, as NM itself then has none; the next PropertiesChanged reads again.
            let ap = try? bus.properties(service, accessPoint, accessPointInterface)
        {
            snapshot.accessPoint = NetworkManagerSnapshot.AccessPoint(
                ssid: ap["Ssid"]?.bytesValue ?? [], hardwareAddress: ap["HwAddress"]?.stringValue ?? "",
                strength: ap["Strength"]?.integerValue ?? 0, frequency: ap["Frequency"]?.integerValue ?? 0)
        }
        return snapshot
    }
}
