/// A change of a rule's condition between known truth values.
public enum Edge: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The condition became true (or was first known true).
    case enter
    /// The condition became false after being true.
    case exit

    /// The opposite edge.
    public var opposite: Edge { self == .enter ? .exit : .enter }

    /// The edge as `on:` writes it: `enter` or `exit`.
    public var description: String { rawValue }
}
