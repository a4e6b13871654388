import NetRulesCore

/// Who hears of which fact changes, by key or by namespace (`interfaces`): the webhook online gate
/// hears `connectivity`, the portal probe the keys that mean "the network changed".
///
/// In the order they subscribed; subscribing again under a name replaces that subscription.
struct FactSubscriptions {
    struct Subscription {
        var name: String
        var keys: Set<FactKey>
        var namespaces: Set<Substring>
        /// Called with the changes it subscribed to, in key order, at least one.
        var deliver: @Sendable ([Engine.Step.Change]) async -> Void

        func wants(_ key: FactKey) -> Bool {
            keys.contains(key) || (!namespaces.isEmpty && namespaces.contains(key.namespace))
        }
    }

    private var subscriptions: [Subscription] = []

    mutating func subscribe(
        _ name: String, keys: Set<FactKey>, namespaces: Set<Substring> = [],
        deliver: @escaping @Sendable ([Engine.Step.Change]) async -> Void
    ) {
        let subscription = Subscription(name: name, keys: keys, namespaces: namespaces, deliver: deliver)
        if let index = subscriptions.firstIndex(where: { $0.name == name }) {
            subscriptions[index] = subscription
        } else {
            subscriptions.append(subscription)
        }
    }

    mutating func unsubscribe(_ name: String) {
        subscriptions.removeAll { $0.name == name }
    }

    /// Runs on the caller's executor (the daemon's): most changes concern no subscriber, and a
    /// plain `async` function would hop off the daemon and back for every fact update.
    nonisolated(nonsending) func deliver(_ changes: [Engine.Step.Change]) async {
        for subscription in subscriptions {
            let wanted = changes.filter { subscription.wants($0.key) }
            if !wanted.isEmpty { await subscription.deliver(wanted) }
        }
    }
}
