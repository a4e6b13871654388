/// A condition with `if_unknown:`: what it counts as while it is unknown.
///
/// Unknown stays the default everywhere (a fact nobody reported yet must not fire a rule by
/// accident); this is the explicit way out for rules such as "not at home", where a machine that
/// cannot see Wi-Fi should still count as away: `not: { ssid: HomeNet, if_unknown: false }`.
public struct UnknownDefaultCondition: Condition {
    /// The condition written beside `if_unknown:`.
    public var inner: any Condition
    /// The value used while `inner` is unknown.
    public var whenUnknown: Bool

    /// Wraps `inner` so that it counts as `whenUnknown` while it is unknown.
    public init(_ inner: any Condition, whenUnknown: Bool) {
        self.inner = inner
        self.whenUnknown = whenUnknown
    }

    /// The keys `inner` reads.
    public var readKeys: [FactKey] { inner.readKeys }

    /// The value of `inner`, or `whenUnknown` while that is unknown.
    public func evaluate(_ facts: FactStore) -> Truth {
        let truth = inner.evaluate(facts)
        return truth == .unknown ? Truth(whenUnknown) : truth
    }

    /// Whether `if_unknown` decides the value with these facts.
    public func applies(_ facts: FactStore) -> Bool { inner.evaluate(facts) == .unknown }

    /// The children of `inner`: `explain` shows this condition in the place of `inner`.
    public var children: [any Condition] { inner.children }
    /// The description of `inner`, followed by the `if_unknown` value.
    public var description: String { "\(inner.description) (if unknown: \(whenUnknown))" }
}
