import NetRulesCore

/// What NetworkManager says about the network at one moment, and the facts that follows.
///
/// Pure: read from D-Bus by `NetworkManagerReader`, turned into facts here, so the mapping is
/// tested without a bus.
package struct NetworkManagerSnapshot: Hashable, Sendable {
    package struct ActiveConnection: Hashable, Sendable {
        package var path: String
        package var id: String
        package var uuid: String
        package var type: String
        package var vpn: Bool
        package var devices: [String]
        package var specificObject: String?
        /// NetworkManager's `Default`: carries the IPv4 default route.
        package var isDefault: Bool
    }

    package struct AccessPoint: Hashable, Sendable {
        package var ssid: [UInt8]
        package var hardwareAddress: String
        /// Percent, 0…100.
        package var strength: Int64
        /// MHz.
        package var frequency: Int64
    }

    /// `Connectivity`: 0 unknown, 1 none, 2 portal, 3 limited, 4 full.
    package var connectivity: Int64?
    package var primary: ActiveConnection?
    package var active: [ActiveConnection] = []
    /// The primary Wi-Fi device's interface name, when one is connected.
    package var wifiInterface: String?
    /// Its access point, when NetworkManager names one.
    package var accessPoint: AccessPoint?

    package init() {}

    /// The Wi-Fi facts NetworkManager can serve.
    package static let wifiKeys: [FactKey] = [.ssid, .bssid, .frequency, .interface, .signalQuality]
    /// The connection facts it always serves.
    package static let connectionKeys: [FactKey] = [
        .connection, .connectionUUID, .connectionType, .vpn, .networkManagerConnectivity,
    ]

    /// Every key this observer reports as unknown: NetworkManager is not on the bus.
    package static func unknownFacts(reportsWiFi: Bool) -> [FactKey: FactState] {
        Dictionary(uniqueKeysWithValues: (connectionKeys + (reportsWiFi ? wifiKeys : [])).map { ($0, .unknown) })
    }

    /// The facts this snapshot says, with the Wi-Fi ones only when `reportsWiFi`.
    package func facts(reportsWiFi: Bool) -> [FactKey: FactState] {
        func text(_ s: String?) -> FactState { s.map { .value(.string($0)) } ?? .absent }
        var facts: [FactKey: FactState] = [
            .connection: text(primary?.id),
            .connectionUUID: text(primary?.uuid),
            .connectionType: text(primary?.type),
            .vpn: .value(.list(active.filter(\.vpn).map { FactValue.string($0.id) })),
            .networkManagerConnectivity: .value(.string(Self.connectivityWord(connectivity))),
        ]
        if reportsWiFi {
            if let ap = accessPoint, wifiInterface != nil {
                facts[.ssid] = .value(.text(ap.ssid))
                facts[.bssid] = FactKey.bssid.normalized(ap.hardwareAddress).map { .value(.string($0)) } ?? .absent
                facts[.frequency] = .value(.number(Double(ap.frequency)))
                facts[.signalQuality] = .value(.number(Double(ap.strength)))
            } else {
                for key in [FactKey.ssid, .bssid, .frequency, .signalQuality] { facts[key] = .absent }
            }
            facts[.interface] = text(wifiInterface)
        }
        return facts
    }

    /// NetworkManager's `NMConnectivityState` as a word.
    static func connectivityWord(_ state: Int64?) -> String {
        switch state {
        case 1: "none"
        case 2: "portal"
        case 3: "limited"
        case 4: "full"
        default: "unknown"
        }
    }
}

extension FactKey {
    /// The primary active connection's name (NetworkManager's `Id`).
    package static let connection: FactKey = "connection"
    /// Its UUID.
    package static let connectionUUID: FactKey = "connection.uuid"
    /// Its type, as NetworkManager spells it (`802-11-wireless`, `802-3-ethernet`, `vpn`, …).
    package static let connectionType: FactKey = "connection.type"
    /// The names of the active VPN connections.
    package static let vpn: FactKey = "vpn"
    /// NetworkManager's own connectivity verdict: `none`, `portal`, `limited`, `full` or `unknown`.
    package static let networkManagerConnectivity: FactKey = "nm.connectivity"
    /// The Wi-Fi signal as NetworkManager's `Strength`, in percent.
    package static let signalQuality: FactKey = "signal.quality"
}
