/// A three-valued (Kleene) truth value: a condition over an unknown fact is unknown.
public enum Truth: Hashable, Sendable, CustomStringConvertible {
    case `true`
    case `false`
    case unknown

    /// Lifts a Boolean.
    public init(_ value: Bool) {
        self = value ? .true : .false
    }

    /// The Boolean when known.
    public var known: Bool? {
        switch self {
        case .true: true
        case .false: false
        case .unknown: nil
        }
    }

    /// Kleene negation: `not unknown = unknown`.
    public static prefix func ! (t: Truth) -> Truth {
        switch t {
        case .true: .false
        case .false: .true
        case .unknown: .unknown
        }
    }

    /// Kleene conjunction: `false ∧ unknown = false`.
    public static func && (lhs: Truth, rhs: Truth) -> Truth {
        if lhs == .false || rhs == .false { return .false }
        if lhs == .unknown || rhs == .unknown { return .unknown }
        return .true
    }

    /// Kleene disjunction: `true ∨ unknown = true`.
    public static func || (lhs: Truth, rhs: Truth) -> Truth {
        if lhs == .true || rhs == .true { return .true }
        if lhs == .unknown || rhs == .unknown { return .unknown }
        return .false
    }

    /// `true`, `false` or `unknown`, as `explain` prints it.
    public var description: String {
        switch self {
        case .true: "true"
        case .false: "false"
        case .unknown: "unknown"
        }
    }
}
