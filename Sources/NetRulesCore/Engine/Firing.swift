/// A rule's edge that fired: what the action runner must do, with the facts as they were.
public struct Firing: Sendable {
    /// The rule's name.
    public var rule: String
    /// The edge that fired: `enter` or `exit`.
    public var edge: Edge
    /// When it fired, on the engine's clock.
    public var at: Instant
    /// The facts at that moment.
    public var facts: FactStore
    /// The rule's actions, in order.
    public var actions: [ActionSpec]
    /// A durable identity the daemon assigns and persists, so work resumed after a crash is
    /// recognised: a webhook's idempotency key derives from it. Nil for one-off runs.
    public var id: String?
    /// The first action to run: actions before it already ran in an earlier process (a firing
    /// resumed after a restart runs only what it had not finished).
    public var firstAction = 0

    /// Creates a firing that runs every action; the daemon sets `id` and `firstAction` when it
    /// persists or resumes one.
    public init(rule: String, edge: Edge, at: Instant, facts: FactStore, actions: [ActionSpec]) {
        self.rule = rule
        self.edge = edge
        self.at = at
        self.facts = facts
        self.actions = actions
    }
}
