/// `all: [...]`: true when every member is true (Kleene conjunction).
public struct AllCondition: Condition {
    public var members: [any Condition]

    public init(_ members: [any Condition]) { self.members = members }

    public var readKeys: [FactKey] { members.flatMap(\.readKeys) }

    public func evaluate(_ facts: FactStore) -> Truth {
        var result = Truth.true
        for member in members {
            result = result && member.evaluate(facts)
            if result == .false { return .false }
        }
        return result
    }

    public var children: [any Condition] { members }
    public var description: String { "all" }
}

/// `any: [...]`: true when some member is true (Kleene disjunction).
public struct AnyCondition: Condition {
    public var members: [any Condition]

    public init(_ members: [any Condition]) { self.members = members }

    public var readKeys: [FactKey] { members.flatMap(\.readKeys) }

    public func evaluate(_ facts: FactStore) -> Truth {
        var result = Truth.false
        for member in members {
            result = result || member.evaluate(facts)
            if result == .true { return .true }
        }
        return result
    }

    public var children: [any Condition] { members }
    public var description: String { "any" }
}

/// `not: {...}`: Kleene negation.
public struct NotCondition: Condition {
    public var inner: any Condition

    public init(_ inner: any Condition) { self.inner = inner }

    public var readKeys: [FactKey] { inner.readKeys }
    public func evaluate(_ facts: FactStore) -> Truth { !inner.evaluate(facts) }
    public var children: [any Condition] { [inner] }
    public var description: String { "not" }
}
