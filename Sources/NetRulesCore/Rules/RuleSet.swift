/// Everything one load of rule files produced: the rules and the top-level settings.
public struct RuleSet: Sendable {
    /// The rules that validated, in the order they were defined; firings of one update come in this order.
    public var rules: [Rule]
    /// Named hosts from `hosts:` plus hosts written inline in conditions.
    public var hosts: [HostDefinition]
    /// `connectivity:`: the captive-portal probes and their timing, or the defaults.
    public var connectivity: ConnectivitySettings
    /// `observers:`: the observer plugins the daemon runs beside its built-in observers.
    public var observers: [ObserverDefinition]
    /// Directories searched for `netrules-action-NAME` and `netrules-observer-NAME` before `PATH`.
    public var pluginDirectories: [String]
    /// `wifi:`: where the Wi-Fi facts come from, and how often `signal` is sampled.
    public var wifi: WiFiSettings
    /// `places:`: named places and their proofs, in file order (`place` names the first `here`).
    public var places: [PlaceDefinition]
    /// `mqtt:`: the broker the daemon publishes to, or nil (no MQTT client).
    public var mqtt: MQTTSettings?

    /// Creates a rule set; each part defaults to what a rule file that leaves it out gets.
    public init(
        rules: [Rule] = [], hosts: [HostDefinition] = [], connectivity: ConnectivitySettings = .init(),
        observers: [ObserverDefinition] = [], pluginDirectories: [String] = [], wifi: WiFiSettings = .init(),
        places: [PlaceDefinition] = [], mqtt: MQTTSettings? = nil
    ) {
        self.mqtt = mqtt
        self.places = places
        self.rules = rules
        self.hosts = hosts
        self.connectivity = connectivity
        self.wifi = wifi
        self.observers = observers
        self.pluginDirectories = pluginDirectories
    }

    /// Every fact key some rule reads.
    public var readKeys: Set<FactKey> {
        Set(rules.flatMap { $0.condition.readKeys })
    }

    /// What the probes must watch for these rules: the hosts whose `hosts.NAME` is read, whether
    /// any rule reads `connectivity` or holds a webhook for `online` (so the portal probe runs only
    /// when needed), and whether any rule reads `signal` (so it is sampled only when needed).
    public var demand: ProbeDemand {
        let keys = readKeys
        let watched = hosts.filter { keys.contains(.host($0.name)) }
        // A `when: online` webhook waits for the portal probe's verdict even if no condition reads it.
        let waitsForOnline = rules.contains { rule in
            rule.actions.contains { $0.action.webhook?.waitsForOnline == true }
        }
        return ProbeDemand(
            hosts: watched,
            needsConnectivity: keys.contains(.connectivity) || waitsForOnline
                || mqtt?.published.contains(.connectivity) == true,
            needsSignal: keys.contains(.signal) || mqtt?.published.contains(.signal) == true)
    }

    /// How often the Wi-Fi observer samples `signal`: every `wifi.signal_interval` while a rule
    /// reads it or `watching` (a `watch` client, which shows every fact), else nil: no sampling,
    /// and no timer armed for it.
    public func signalSamplingInterval(watching: Bool) -> Duration? {
        demand.needsSignal || watching ? wifi.signalInterval : nil
    }
}

/// Which probes the loaded rules need.
public struct ProbeDemand: Hashable, Sendable {
    /// The hosts whose `hosts.NAME` some rule reads: the reachability probes watch only these.
    public var hosts: [HostDefinition]
    /// Whether the captive-portal probe must run: a rule reads `connectivity`, or a webhook waits
    /// for `online`.
    public var needsConnectivity: Bool
    /// Whether a rule reads `signal`, which moves between association events and so is sampled.
    public var needsSignal: Bool

    /// Creates a demand; `RuleSet.demand` computes the one loaded rules need.
    public init(hosts: [HostDefinition], needsConnectivity: Bool, needsSignal: Bool = false) {
        self.hosts = hosts
        self.needsConnectivity = needsConnectivity
        self.needsSignal = needsSignal
    }
}
