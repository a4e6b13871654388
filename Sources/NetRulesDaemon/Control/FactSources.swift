import NetRulesCore
import NetRulesLinux

/// Which observer reports each fact on this machine under a rule set: the one answer `facts` prints
/// in its SOURCE column and `doctor` checks the rules' facts against, so the two never disagree.
///
/// A plugin that declares a key (`provides:`) is its source, whatever the built-in observers could
/// say. The places of `places:` report `place` and `places.NAME` (with `.proof` and `.reason`), the
/// host probes `hosts.NAME`, and `subscribe:` of `mqtt:` its `mqtt.NAME`. The Wi-Fi facts come from
/// the observer `wifi: { source: … }` picks on this kernel, exactly as the daemon's `ObserverPlan`
/// picks it: nl80211 or NetworkManager, or neither with `source: none`, which leaves them to plugins.
/// Pure: the machine is described by the two values it is given. The running daemon answers with
/// its own (`DaemonQueries.factSources()`: its rule set, this kernel, NetworkManager as its
/// observer sees it), so `facts` without rule files names the sources the daemon runs.
package struct FactSources: Sendable {
    /// Where one fact comes from.
    package enum Source: Hashable, Sendable {
        /// Reported by these observers, named as `facts` names them: `nl80211`, `plugin badge`.
        case observer(String)
        /// Nothing here reports it: `label` for the facts table (`none (nl80211 only)`), `reason` for
        /// doctor's sentence (`neither nl80211 nor NetworkManager is available`).
        case nothing(label: String, reason: String)

        /// What `facts` prints in its SOURCE column.
        package var label: String {
            switch self {
            case .observer(let name): name
            case .nothing(let label, _): label
            }
        }
    }

    /// The rules whose `observers:`, `places:`, `mqtt:` and `wifi:` decide.
    package var ruleSet: RuleSet
    /// Whether this kernel answers for nl80211 (`WiFiSource.kernelHasNL80211`).
    package var kernelHasNL80211: Bool
    /// Whether NetworkManager is on the system bus; nil when nobody asked, and NetworkManager is then
    /// named as the source of what it would report.
    package var networkManagerOnBus: Bool?

    package init(ruleSet: RuleSet, kernelHasNL80211: Bool, networkManagerOnBus: Bool?) {
        self.ruleSet = ruleSet
        self.kernelHasNL80211 = kernelHasNL80211
        self.networkManagerOnBus = networkManagerOnBus
    }

    /// Every key these rules and the built-in observers can report, besides one per interface:
    /// the fixed keys of `FactCatalog`, what the rules read (`factKeysRead`: `places.NAME`,
    /// `hosts.NAME`, plugin facts), each place's `.proof` and `.reason` when it has proofs, and each
    /// `mqtt.NAME` of `subscribe:`; engine-internal keys left out.
    package var keys: Set<FactKey> {
        var keys = Set(FactCatalog.fixedKeys).union(ruleSet.factKeysRead)
        for place in ruleSet.places where !place.proofs.isEmpty {
            keys.formUnion([.placeProof(place.name), .placeReason(place.name)])
        }
        keys.formUnion(ruleSet.mqtt?.subscriptions.map(\.factKey) ?? [])
        return keys.filter { !$0.isEngineInternal }
    }

    /// Where `key` comes from here.
    package func source(of key: FactKey) -> Source {
        let declaring = ruleSet.observers.filter { $0.provides.contains(key) }.map { "plugin \($0.name)" }
        if !declaring.isEmpty { return .observer(declaring.joined(separator: ", ")) }
        if key.isEngineInternal { return .observer("the engine") }
        switch key.namespace {
        case "hosts": return .observer("host probes")
        case "interfaces": return .observer("netlink")
        // `places.NAME`, `places.NAME.proof`, `places.NAME.reason`: the place's condition and proofs.
        case "places":
            let parts = key.rawValue.split(separator: ".")
            return .observer(parts.count > 1 ? "place \(parts[1])" : "places")
        case "mqtt":
            if let topic = ruleSet.mqtt?.subscriptions.first(where: { $0.factKey == key })?.topic {
                return .observer("mqtt \(topic)")
            }
            return .nothing(label: "mqtt (subscribe:)", reason: "no subscribe: of mqtt: names it")
        default: break
        }
        switch key {
        case .ssid, .bssid, .frequency, .interface: return wifi
        case .signal: return signal
        case .signalQuality: return signalQuality
        case .connection, .connectionUUID, .connectionType, .networkManagerConnectivity:
            return networkManagerOnBus == false ? Self.networkManagerOff : .observer("networkmanager")
        // The VPN interfaces the kernel reports, merged with NetworkManager's VPN connections (`VPNNames`).
        case .vpn: return .observer(networkManagerOnBus == false ? "netlink" : "netlink, networkmanager")
        case .connectivity, .portalURL: return .observer("portal probe")
        case .dns: return .observer("resolv.conf")
        case .place: return .observer("places")
        default:
            if FactKey.vocabulary.contains(key) { return .observer("netlink") }
            let plugins = ruleSet.observers.map { "plugin \($0.name)" }
            guard plugins.isEmpty else { return .observer(plugins.joined(separator: ", ")) }
            return .nothing(
                label: "a plugin (none configured)", reason: "no observer plugin is configured to report it")
        }
    }

    private var setting: WiFiSource { WiFiSource(rawValue: ruleSet.wifi.source.rawValue) ?? .auto }

    /// `ssid`, `bssid`, `frequency` and `interface` from the built-in observers.
    private var wifi: Source {
        if setting.usesNL80211(kernelHasNL80211: kernelHasNL80211) {
            return kernelHasNL80211
                ? .observer("nl80211")
                : .nothing(
                    label: "none (no nl80211 here)", reason: "wifi: { source: nl80211 } and this kernel has no nl80211")
        }
        if setting.usesNetworkManager(kernelHasNL80211: kernelHasNL80211) {
            guard networkManagerOnBus == false else { return .observer("networkmanager") }
            return .nothing(
                label: "none (NetworkManager is not on the bus)",
                reason: setting == .auto
                    ? "neither nl80211 nor NetworkManager is available"
                    : "wifi: { source: networkmanager } and NetworkManager is not on the bus")
        }
        return Self.turnedOff
    }

    /// `signal` in dBm: only nl80211 measures it.
    private var signal: Source {
        if setting == .none || setting.usesNL80211(kernelHasNL80211: kernelHasNL80211) { return wifi }
        return .nothing(
            label: "none (nl80211 only)",
            reason: kernelHasNL80211
                ? "signal in dBm comes only from nl80211, which wifi: { source: networkmanager } turns off; "
                    + "NetworkManager gives signal.quality"
                : "signal in dBm comes only from nl80211; NetworkManager gives signal.quality")
    }

    /// `signal.quality` in percent: NetworkManager gives it only where it serves the Wi-Fi facts.
    private var signalQuality: Source {
        if setting == .none || setting.usesNetworkManager(kernelHasNL80211: kernelHasNL80211) { return wifi }
        return .nothing(
            label: "none (nl80211 serves Wi-Fi)",
            reason: "signal.quality comes only from NetworkManager, and nl80211 serves Wi-Fi here (signal in dBm)")
    }

    private static let turnedOff = Source.nothing(
        label: "none (wifi: { source: none })", reason: "wifi: { source: none } turns the built-in Wi-Fi observers off")

    private static let networkManagerOff = Source.nothing(
        label: "none (NetworkManager is not on the bus)",
        reason: "it comes from NetworkManager, which is not on the bus")
}
