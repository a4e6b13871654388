import NetRulesCore
import NetRulesLinux
import NetRulesProbes
import NetRulesSystem

/// Which observers a rule set needs, each under an identity that changes when its configuration
/// does, so a reload restarts exactly the observers whose settings changed.
package struct ObserverPlan {
    package struct Entry: Sendable {
        package var identity: String
        package var observer: any Observer
        /// The portal probe, kept so network changes can trigger a re-check.
        package var portal: PortalProbe?

        package init(identity: String, observer: any Observer, portal: PortalProbe? = nil) {
            self.identity = identity
            self.observer = observer
            self.portal = portal
        }
    }

    package var entries: [Entry]

    /// The built-in observers always run; probes and plugins only when the rules ask for them.
    /// Every observer waits on `loop`; probes on its timers (`QuietClock`), so the minutes
    /// between rounds cost no wake-ups. The Wi-Fi observer keeps one identity whatever its
    /// sampling: the daemon changes `signalSampling` while it runs (rules and `watch` clients come
    /// and go), without a restart. `kernelHasNL80211` is `WiFiSource.kernelHasNL80211`, asked
    /// off the loop (it polls a netlink socket).
    package init(
        ruleSet: RuleSet, loop: ThreadExecutor, kernelHasNL80211: Bool, signalSampling: SignalSampling,
        logger: Logger
    ) {
        var entries: [Entry] = [
            Entry(identity: "netlink", observer: LinuxNetworkObserver(loop: loop, logger: logger)),
            Entry(identity: "dns", observer: ResolverObserver(loop: loop)),
        ]
        // `wifi.source` (auto: nl80211 where the kernel has it, NetworkManager otherwise); NetworkManager's
        // connection facts come from it whenever it is on the bus.
        let source = WiFiSource(rawValue: ruleSet.wifi.source.rawValue) ?? .auto
        let kernelWiFi = kernelHasNL80211
        if source.usesNL80211(kernelHasNL80211: kernelWiFi) {
            entries.append(
                Entry(
                    identity: "wifi", observer: WiFiObserver(loop: loop, signalSampling: signalSampling, logger: logger)
                ))
        }
        let nmWiFi = source.usesNetworkManager(kernelHasNL80211: kernelWiFi)
        entries.append(
            Entry(
                identity: "networkmanager:\(nmWiFi ? "wifi" : "connections")",
                observer: NetworkManagerObserver(
                    loop: loop, reportsWiFi: nmWiFi,
                    missingBusLevel: Self.readsNetworkManager(ruleSet, reportsWiFi: nmWiFi) ? .warning : .info,
                    logger: logger)))
        for definition in ruleSet.observers {
            entries.append(
                Entry(
                    identity: "exec:\(definition.name):\(definition.command.joined(separator: "\u{0}"))",
                    observer: ExecObserver(definition: definition, loop: loop, logger: logger)))
        }
        let demand = ruleSet.demand
        if !demand.hosts.isEmpty {
            let identity = "probes:" + demand.hosts.map { "\($0)" }.sorted().joined(separator: "|")
            entries.append(Entry(identity: identity, observer: HostProber(hosts: demand.hosts, loop: loop)))
        }
        if demand.needsConnectivity {
            let portal = PortalProbe(settings: ruleSet.connectivity, loop: loop)
            entries.append(Entry(identity: "portal:\(ruleSet.connectivity)", observer: portal, portal: portal))
        }
        self.entries = entries
    }

    /// Whether a rule, a place or the MQTT state reads a fact NetworkManager reports (its
    /// connection facts, and the Wi-Fi ones where it serves them): only then is a missing system
    /// bus worth a warning at each start.
    static func readsNetworkManager(_ ruleSet: RuleSet, reportsWiFi: Bool) -> Bool {
        let reported = Set(
            NetworkManagerSnapshot.connectionKeys + (reportsWiFi ? NetworkManagerSnapshot.wifiKeys : []))
        var read = ruleSet.readKeys
        for place in ruleSet.places { read.formUnion(place.condition.readKeys) }
        read.formUnion(ruleSet.mqtt?.published ?? [])
        return !read.isDisjoint(with: reported)
    }
}
