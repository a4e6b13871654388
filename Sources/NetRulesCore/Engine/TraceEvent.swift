/// What the engine decided without firing, for `simulate --trace`: a `for:` hold started or was
/// cancelled, or a firing was dropped by `cooldown:` or `once_per:`.
public struct TraceEvent: Hashable, Sendable {
    /// What the engine decided.
    public enum Kind: Hashable, Sendable {
        /// A `for:` hold started; the edge fires at `until` if the condition stays.
        case held(until: Instant)
        /// A pending hold ended because the condition changed back (or became unknown).
        case cancelled
        /// The edge would have fired but `reason` (`cooldown` or `once_per`) dropped it.
        case dropped(reason: String)
    }

    /// The rule's name.
    public var rule: String
    /// The edge the decision is about.
    public var edge: Edge
    /// When the engine decided, on its clock.
    public var at: Instant
    /// What the engine decided.
    public var kind: Kind
    /// For `.dropped`: when the `cooldown:` or `once_per:` window that dropped the edge ends.
    public var until: Instant?

    /// Creates a trace event.
    ///
    /// - Parameters:
    ///   - until: for `.dropped`, when the window that dropped the edge ends; nil otherwise.
    public init(rule: String, edge: Edge, at: Instant, kind: Kind, until: Instant? = nil) {
        self.rule = rule
        self.edge = edge
        self.at = at
        self.kind = kind
        self.until = until
    }
}
