import NetRulesCore
import NetRulesDaemon

extension DoctorCommand {
    /// The Wi-Fi facts this doctor names the source of, in the order it names them.
    private static let wifiKeys: [FactKey] = [.ssid, .bssid, .frequency, .interface, .signal]

    /// Which source serves each Wi-Fi fact here, as `facts` names it (`FactSources`, so the rules'
    /// `wifi:` and the plugins' `provides:` count): `ssid and bssid come from plugin wifi-helper;
    /// frequency, interface and signal from nowhere (…)`.
    ///
    /// A warning only when the source the rules ask for cannot serve `ssid`, `bssid` or `frequency`
    /// here. With `wifi: { source: none }` what no plugin provides is the rules' choice, and the
    /// `fact KEY` checks name any of those the rules read.
    static func wifiSourceCheck(_ sources: FactSources) -> DoctorCheck {
        var groups: [(source: FactSources.Source, keys: [String])] = []
        for key in wifiKeys {
            let source = sources.source(of: key)
            if let index = groups.firstIndex(where: { $0.source == source }) {
                groups[index].keys.append(key.rawValue)
            } else {
                groups.append((source, [key.rawValue]))
            }
        }
        let detail = groups.enumerated().map { index, group in
            let origin =
                switch group.source {
                case .observer(let name): name
                case .nothing(_, let reason): "nowhere (\(reason))"
                }
            let verb = index > 0 ? "" : (group.keys.count == 1 ? " comes" : " come")
            return "\(group.keys.listed)\(verb) from \(origin)"
        }.joined(separator: "; ")
        let unserved = wifiKeys.prefix(3).contains {
            if case .nothing = sources.source(of: $0) { true } else { false }
        }
        guard unserved, sources.ruleSet.wifi.source != .none else { return .ok("wifi-source", detail) }
        return .warning(
            "wifi-source", detail,
            fix: "run NetworkManager, or use a kernel with cfg80211, or an observer plugin that reports them")
    }

    /// An error naming each fact in `read` that nothing here reports, with why and the fix, or one
    /// `facts` ok when every one has a source (`FactSources`).
    static func factChecks(reading read: Set<FactKey>, sources: FactSources) -> [DoctorCheck] {
        let missing = read.sorted().compactMap { key -> (FactKey, String)? in
            guard case .nothing(_, let reason) = sources.source(of: key) else { return nil }
            return (key, reason)
        }
        guard !missing.isEmpty else { return [.ok("facts", "every fact the rules read has a source on this machine")] }
        return missing.map { key, why in
            .error(
                "fact \(key)", "the rules read '\(key)' but nothing here provides it: \(why)",
                fix:
                    "provide it (see the checks above) or the rule will stay unknown; if_unknown: can say what unknown counts as"
            )
        }
    }
}

extension [String] {
    /// `a`, `a and b`, `a, b and c`.
    fileprivate var listed: String {
        count < 2 ? joined() : dropLast().joined(separator: ", ") + " and " + last!
    }
}
