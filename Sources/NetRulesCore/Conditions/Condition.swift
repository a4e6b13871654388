/// A compiled predicate over the facts.
///
/// Every condition kind, built-in or added, conforms. The engine indexes rules by
/// `readKeys`, so a condition must name every key its `evaluate` reads; a fact update
/// re-evaluates only the rules that read a changed key.
public protocol Condition: Sendable, CustomStringConvertible {
    /// The fact keys this condition reads.
    var readKeys: [FactKey] { get }

    /// Evaluates the condition over the facts, in three-valued logic.
    func evaluate(_ facts: FactStore) -> Truth

    /// The nested conditions (for `all`, `any`, `not`), so `explain` can show a tree.
    var children: [any Condition] { get }
}

extension Condition {
    /// No nested conditions: the default for every condition that is not a combinator.
    public var children: [any Condition] { [] }
}

/// Evaluates a test over one fact's value: unknown stays unknown, absent is handled by the caller.
@inlinable
func evaluate(_ state: FactState, absent: Truth = .false, _ test: (FactValue) -> Bool) -> Truth {
    switch state {
    case .unknown: .unknown
    case .absent: absent
    case .value(let v): Truth(test(v))
    }
}
