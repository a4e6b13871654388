/// Derives `places.NAME`, `places.NAME.proof`, `places.NAME.reason` and `place` from the other
/// facts, inside the engine's step, so every rule sees them in the same update as their causes.
///
/// A change of a key in a place's `recheckKeys` (its condition's, the route's, the addresses',
/// the DNS servers') makes the outcome of its proofs stale: `proof` becomes `pending` (null while
/// the condition is false) and the place's *round* moves on. The prober's outcome is accepted only
/// for the current round (`Engine.recordProof`), so an answer from before a network change can
/// never make the new network `here`. Facts a timeline (or test) names itself are left as given:
/// `simulate` sets `places.office: claimed` or `places.office.proof: passed` directly.
///
/// A value, confined to the engine.
struct PlaceDerivation: Sendable {
    private(set) var places: [PlaceDefinition] = []
    /// Each place's round: bumped whenever its proofs' outcome is made stale.
    private(set) var rounds: [UInt64] = []
    private var placesByKey: [FactKey: [Int]] = [:]
    private var indexByName: [String: Int] = [:]

    init(places: [PlaceDefinition] = []) {
        self.places = places
        rounds = Array(repeating: 0, count: places.count)
        for (index, place) in places.enumerated() {
            indexByName[place.name] = indexByName[place.name] ?? index
            for key in place.recheckKeys { placesByKey[key, default: []].append(index) }
            for key in [FactKey.placeProof(place.name), .placeReason(place.name), .placeStatus(place.name)] {
                placesByKey[key, default: []].append(index)
            }
        }
    }

    /// Carries the rounds of places whose name and fingerprint are unchanged across a reload,
    /// and returns the others: their proofs' outcome is stale.
    mutating func keepRounds(of old: PlaceDerivation) -> Set<Int> {
        var changed: Set<Int> = []
        for (index, place) in places.enumerated() {
            if let before = old.indexByName[place.name], !place.fingerprint.isEmpty,
                old.places[before].fingerprint == place.fingerprint
            {
                rounds[index] = old.rounds[before]
            } else {
                changed.insert(index)
            }
        }
        return changed
    }

    func index(of name: String) -> Int? { indexByName[name] }

    /// The derived facts after `changed` (the keys an update changed), with the places in
    /// `stale` made stale whatever changed, leaving alone the keys `named` (the update's own).
    mutating func derive(
        after changed: [FactKey], stale alsoStale: Set<Int> = [], named: [FactKey: FactState] = [:],
        facts: FactStore
    ) -> FactUpdate {
        guard !places.isEmpty else { return FactUpdate() }
        var stale = alsoStale
        var touched = alsoStale
        for key in changed {
            for index in placesByKey[key] ?? [] {
                touched.insert(index)
                if places[index].recheckKeys.contains(key) { stale.insert(index) }
            }
        }
        guard !touched.isEmpty else { return FactUpdate() }
        var update = FactUpdate()
        func state(_ key: FactKey) -> FactState { update[key] ?? facts[key] }
        for index in stale.sorted() where !places[index].proofs.isEmpty {
            let place = places[index]
            guard named[.placeProof(place.name)] == nil else { continue }
            rounds[index] &+= 1
            let holds = place.condition.evaluate(facts)
            update[.placeProof(place.name)] = holds == .false ? .absent : .value(.string(ProofState.pending.rawValue))
            if named[.placeReason(place.name)] == nil { update[.placeReason(place.name)] = .absent }
        }
        for index in touched.sorted() {
            let place = places[index]
            guard named[.placeStatus(place.name)] == nil else { continue }
            let status = Self.status(of: place, facts: facts, proof: state(.placeProof(place.name)))
            update[.placeStatus(place.name)] = status.map { .value(.string($0.rawValue)) } ?? .unknown
        }
        if named[.place] == nil {
            update[.place] = Self.currentPlace(places, state)
        }
        return update
    }

    /// `here`, `claimed` or `away`; nil (unknown) while the condition is.
    static func status(of place: PlaceDefinition, facts: FactStore, proof: FactState) -> PlaceStatus? {
        switch place.condition.evaluate(facts) {
        case .unknown: return nil
        case .false: return .away
        case .true:
            if place.proofs.isEmpty { return .here }
            return proof.value?.stringValue == ProofState.passed.rawValue ? .here : .claimed
        }
    }

    /// The first place (in file order) that is `here`; unknown when an earlier place is unknown
    /// (it might be here), null when none is.
    static func currentPlace(_ places: [PlaceDefinition], _ state: (FactKey) -> FactState) -> FactState {
        for place in places {
            switch state(.placeStatus(place.name)) {
            case .unknown: return .unknown
            case .value(let v) where v.stringValue == PlaceStatus.here.rawValue: return .value(.string(place.name))
            default: continue
            }
        }
        return .absent
    }
}
