import NetRulesCore

extension RuleSet {
    /// Every fact key these rules can read: what their conditions and their places' conditions
    /// read, each place's `places.NAME`, each host's `hosts.NAME` and each plugin's `provides:`;
    /// engine-internal keys (`clock.local`) left out. `facts` lists them all, reported or not.
    package var factKeysRead: Set<FactKey> {
        var keys = readKeys
        for place in places {
            keys.formUnion(place.condition.readKeys)
            keys.insert(.placeStatus(place.name))
        }
        keys.formUnion(hosts.map { FactKey.host($0.name) })
        keys.formUnion(observers.flatMap(\.provides))
        return keys.filter { !$0.isEngineInternal }
    }
}
