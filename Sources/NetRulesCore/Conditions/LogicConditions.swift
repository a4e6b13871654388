/// `all: [...]`: true when every member is true (Kleene conjunction).
public struct AllCondition: Condition {
    /// The conditions that must all be true, in the order written; evaluation stops at the first false.
    public var members: [any Condition]

    /// Creates `all:` over `members`; with no members it is true.
    public init(_ members: [any Condition]) { self.members = members }

    /// Every key any member reads.
    public var readKeys: [FactKey] { members.flatMap(\.readKeys) }

    /// False if a member is false, else unknown if a member is unknown, else true.
    public func evaluate(_ facts: FactStore) -> Truth {
        var result = Truth.true
        // By index: `for member in members` copies each existential out of the array first.
        for index in members.indices {
            result = result && members[index].evaluate(facts)
            if result == .false { return .false }
        }
        return result
    }

    /// The members.
    public var children: [any Condition] { members }
    /// `all`, the node's label in `explain`.
    public var description: String { "all" }
}

/// `any: [...]`: true when some member is true (Kleene disjunction).
public struct AnyCondition: Condition {
    /// The conditions of which one must be true, in the order written; evaluation stops at the first true.
    public var members: [any Condition]

    /// Creates `any:` over `members`; with no members it is false.
    public init(_ members: [any Condition]) { self.members = members }

    /// Every key any member reads.
    public var readKeys: [FactKey] { members.flatMap(\.readKeys) }

    /// True if a member is true, else unknown if a member is unknown, else false.
    public func evaluate(_ facts: FactStore) -> Truth {
        var result = Truth.false
        // By index, as `all:` does: no copy of each member.
        for index in members.indices {
            result = result || members[index].evaluate(facts)
            if result == .true { return .true }
        }
        return result
    }

    /// The members.
    public var children: [any Condition] { members }
    /// `any`, the node's label in `explain`.
    public var description: String { "any" }
}

/// `not: {...}`: Kleene negation.
public struct NotCondition: Condition {
    /// The condition negated.
    public var inner: any Condition

    /// Creates `not:` of `inner`.
    public init(_ inner: any Condition) { self.inner = inner }

    /// The keys `inner` reads.
    public var readKeys: [FactKey] { inner.readKeys }
    /// The negation of `inner`; unknown stays unknown.
    public func evaluate(_ facts: FactStore) -> Truth { !inner.evaluate(facts) }
    /// `inner`, the one child.
    public var children: [any Condition] { [inner] }
    /// `not`, the node's label in `explain`.
    public var description: String { "not" }
}
