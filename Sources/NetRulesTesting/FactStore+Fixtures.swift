import NetRulesCore

extension FactStore {
    /// A store holding these facts (nil values are known absent).
    package static func with(_ values: [FactKey: FactValue?]) -> FactStore {
        var store = FactStore()
        store.apply(FactUpdate(values: values))
        return store
    }
}

extension FactUpdate {
    /// An update setting these facts (nil values are known absent).
    package static func set(_ values: [FactKey: FactValue?]) -> FactUpdate {
        FactUpdate(values: values)
    }

    /// An update forgetting these facts.
    package static func forget(_ keys: FactKey...) -> FactUpdate {
        FactUpdate(Dictionary(uniqueKeysWithValues: keys.map { ($0, FactState.unknown) }))
    }
}
