@preconcurrency import Glibc
import NetRulesCore

/// A mirror of the kernel's links, addresses, main-table routes and neighbours, built from rtnetlink.
///
/// A pure value: it applies decoded messages and never does I/O, so tests drive it with fixtures.
/// Not thread-safe; the netlink reader thread owns its copy.
package struct NetworkTable: Hashable, Sendable {
    var links: [Int32: LinkMessage] = [:]
    var addresses: [AddressKey: AddressMessage] = [:]
    var routes: [RouteKey: RouteMessage] = [:]
    var neighbours: [NeighbourKey: NeighbourMessage] = [:]

    package init() {}

    /// The kinds of objects, in the order a full resync dumps them.
    enum Kind: CaseIterable, Sendable {
        case links, addresses, routes, neighbours
    }

    /// What the caller must do after applying a message.
    package struct Outcome: Equatable, Sendable {
        /// The kernel may have dropped routes without telling us (it does so for IPv4 routes when a link
        /// goes down or an address goes away), so the route table must be dumped again.
        var routesNeedResync = false
    }

    /// Forgets every object of one kind, before a dump refills it.
    mutating func removeAll(_ kind: Kind) {
        switch kind {
        case .links: links = [:]
        case .addresses: addresses = [:]
        case .routes: routes = [:]
        case .neighbours: neighbours = [:]
        }
    }

    /// Applies one decoded message.
    @discardableResult
    package mutating func apply(_ event: RouteNetlinkEvent) -> Outcome {
        var outcome = Outcome()
        switch event {
        case .newLink(let link):
            let old = links[link.index]
            links[link.index] = link
            let watched: LinkFlags = [.up, .running, .lowerUp]
            if let old, old.flags.intersection(watched) != link.flags.intersection(watched) {
                outcome.routesNeedResync = true
            }
        case .deleteLink(let link):
            links[link.index] = nil
            addresses = addresses.filter { $0.key.index != link.index }
            routes = routes.filter { $0.value.outputIndex != link.index }
            neighbours = neighbours.filter { $0.key.index != link.index }
            outcome.routesNeedResync = true
        case .newAddress(let address):
            addresses[address.key] = address
        case .deleteAddress(let address):
            addresses[address.key] = nil
            outcome.routesNeedResync = true
        case .newRoute(let route, let replace):
            if replace {
                let replaced = route.replacementKey
                routes = routes.filter { $0.value.replacementKey != replaced }
            }
            routes[route.key] = route
        case .deleteRoute(let route):
            if routes.removeValue(forKey: route.key) == nil {
                // A delete may name fewer fields than the add (no gateway, no interface): drop the matches.
                routes = routes.filter { !$0.value.matches(deletion: route) }
            }
        case .newNeighbour(let neighbour):
            neighbours[neighbour.key] = neighbour
        case .deleteNeighbour(let neighbour):
            neighbours[neighbour.key] = nil
        }
        return outcome
    }
}

extension RouteMessage {
    /// Whether a delete message with possibly missing fields names this route (the kernel's `fib_table_delete` rule).
    func matches(deletion other: RouteMessage) -> Bool {
        guard replacementKey == other.replacementKey else { return false }
        if let gateway = other.gateway, gateway != self.gateway { return false }
        if let index = other.outputIndex, index != outputIndex { return false }
        return true
    }
}
