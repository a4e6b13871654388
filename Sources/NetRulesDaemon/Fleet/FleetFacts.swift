import NetRulesCore
import NetRulesMQTT
import Synchronization

/// The facts the fleet publishes and the ones its connection depends on, fed by the daemon's core
/// with every change (a fact subscription: lossless, in order), and what each change means for
/// the link: `<prefix>/state` to publish again, a route gone or back, an address gone, a default
/// route replaced, connectivity back online.
///
/// The daemon calls `apply` on its own executor; the state document is rendered from here when
/// the link publishes it (at most once per `MQTTLink.coalescing`), so a flood of updates costs a
/// dictionary write each, and the retained state is always the last one.
final class FleetFacts: Sendable {
    let published: [FactKey]
    /// `published` as a set, for the look-up each change makes.
    let publishedKeys: Set<FactKey>
    let keys: Set<FactKey>
    let link: MQTTLink
    let stateTopic: String
    private let facts = Mutex<[FactKey: FactState]>([:])

    /// Whether the broker is on this machine (loopback, a unix socket): then no route matters.
    let brokerIsLocal: Bool

    init(published: [FactKey], link: MQTTLink, stateTopic: String) {
        self.published = published
        brokerIsLocal = link.configuration.broker.isLocal
        publishedKeys = Set(published)
        keys = publishedKeys.union([.gateway, .gateway6, .ip, .connectivity])
        self.link = link
        self.stateTopic = stateTopic
    }

    /// The facts as the subscription began; the first state and the route follow from them. A
    /// change delivered before this (the subscription came first) is newer and stays.
    func start(from store: FactStore) {
        facts.withLock { facts in
            for key in keys where facts[key] == nil { facts[key] = store[key] }
        }
        let (gateway, gateway6) = facts.withLock { ($0[.gateway] ?? .unknown, $0[.gateway6] ?? .unknown) }
        if !brokerIsLocal { link.setRoute(Self.hasRoute(gateway, gateway6)) }
        publishState()
    }

    /// One update's changes, from the daemon.
    func apply(_ changes: [Engine.Step.Change]) {
        var stateChanged = false
        var routeChanged = false
        let (gateway, gateway6) = facts.withLock { facts -> (FactState, FactState) in
            for change in changes { facts[change.key] = change.new }
            return (facts[.gateway] ?? .unknown, facts[.gateway6] ?? .unknown)
        }
        for change in changes {
            if publishedKeys.contains(change.key) { stateChanged = true }
            switch change.key {
            case .gateway, .gateway6:
                routeChanged = true
                // One gateway replaced by another: the connection's path is not the one it was made on.
                if change.old.value != nil, change.new.value != nil, change.old != change.new { link.routeReplaced() }
            case .ip:
                if let addresses = Self.addresses(change.new) { link.addressesChanged(addresses) }
            case .connectivity:
                if change.new == .value(.string("online")) { link.networkChanged() }
            default:
                break
            }
        }
        if routeChanged, !brokerIsLocal { link.setRoute(Self.hasRoute(gateway, gateway6)) }
        // The render closure reads the facts when it runs: marking the state due is enough.
        if stateChanged { link.republish(topic: stateTopic) }
    }

    func publishState() {
        // Weak: the link keeps the closure, and this keeps the link.
        link.setRetained(topic: stateTopic, interval: MQTTLink.coalescing) { [weak self] in
            guard let self else { return [] }
            let snapshot = facts.withLock { $0 }
            return FleetDocuments.state(published) { snapshot[$0] ?? .unknown }.compactBytes
        }
    }

    /// Whether a default route may exist: not while both gateways are known absent.
    static func hasRoute(_ gateway: FactState, _ gateway6: FactState) -> Bool {
        !(gateway == .absent && gateway6 == .absent)
    }

    /// The addresses of the `ip` fact (`192.0.2.7/24` …), or nil while it is unknown.
    static func addresses(_ state: FactState) -> [IPAddress]? {
        switch state {
        case .unknown: return nil
        case .absent: return []
        case .value(let value):
            let items: [FactValue] =
                if case .list(let list) = value { list } else { [value] }
            return items.compactMap { item in
                let text = item.plainText
                return IPAddress(String(text.prefix { $0 != "/" }))
            }
        }
    }
}
