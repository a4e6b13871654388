/// `place: NAME` (the place is `here`) or `place: { name: NAME, is: here | claimed | away }`.
///
/// Reads `places.NAME`, which the engine derives: a place whose condition is unknown is unknown,
/// so is this condition.
public struct PlaceCondition: Condition {
    /// The place's name, as `places:` defines it.
    public var name: String
    /// The status that makes the condition true.
    public var status: PlaceStatus

    /// Creates a condition true while place `name` has `status`.
    public init(name: String, is status: PlaceStatus = .here) {
        self.name = name
        self.status = status
    }

    /// `places.NAME`.
    public var readKeys: [FactKey] { [.placeStatus(name)] }

    /// Whether `places.NAME` is `status`; unknown while it is.
    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[.placeStatus(name)]) { $0.stringValue == status.rawValue }
    }

    /// `places.office is here`.
    public var description: String { "places.\(name) is \(status.rawValue)" }
}
