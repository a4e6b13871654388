/// A condition with `if_unknown:`: what it counts as while it is unknown.
///
/// Unknown stays the default everywhere (a fact nobody reported yet must not fire a rule by
/// accident); this is the explicit way out for rules such as "not at home", where a machine that
/// cannot see Wi-Fi should still count as away: `not: { ssid: HomeNet, if_unknown: false }`.
public struct UnknownDefaultCondition: Condition {
    public var inner: any Condition
    /// The value used while `inner` is unknown.
    public var whenUnknown: Bool

    public init(_ inner: any Condition, whenUnknown: Bool) {
        self.inner = inner
        self.whenUnknown = whenUnknown
    }

    public var readKeys: [FactKey] { inner.readKeys }

    public func evaluate(_ facts: FactStore) -> Truth {
        let truth = inner.evaluate(facts)
        return truth == .unknown ? Truth(whenUnknown) : truth
    }

    /// Whether `if_unknown` decides the value with these facts.
    public func applies(_ facts: FactStore) -> Bool { inner.evaluate(facts) == .unknown }

    public var children: [any Condition] { inner.children }
    public var description: String { "\(inner.description) (if unknown: \(whenUnknown))" }
}
