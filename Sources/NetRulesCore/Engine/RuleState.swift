/// What the engine remembers about one rule between updates.
///
/// The daemon persists it (as wall-clock deadlines, in its own state file): a restart must
/// neither repeat nor lose a firing.
public struct RuleState: Hashable, Sendable {
    /// A pending `for:` hold: the edge fires at `deadline` unless the condition leaves `target` first.
    public struct Hold: Hashable, Sendable {
        /// The truth value being held.
        public var target: Bool
        /// When the hold completes.
        public var deadline: Instant
        /// A hold restored after a restart waits for the condition to be known again: unknown
        /// (the observers have not reported yet) neither cancels nor completes it, so a restart
        /// neither loses nor restarts a hold.
        public var awaitsConfirmation: Bool

        /// Creates a hold that fires `target`'s edge at `deadline`.
        ///
        /// - Parameters:
        ///   - awaitsConfirmation: true for a hold restored after a restart (see `awaitsConfirmation`).
        public init(target: Bool, deadline: Instant, awaitsConfirmation: Bool = false) {
            self.target = target
            self.deadline = deadline
            self.awaitsConfirmation = awaitsConfirmation
        }

        /// The edge the hold fires.
        public var edge: Edge { target ? .enter : .exit }
    }

    /// The accepted truth value edges are computed from; nil until first known.
    public var confirmed: Bool?
    /// The condition's latest evaluation (may be unknown).
    public var current: Truth
    /// The pending `for:` hold, if any.
    public var hold: Hold?
    /// Firings before this instant are dropped.
    public var cooldownUntil: Instant?
    /// `once_per:`: per edge, firings of that edge before this instant (the next local day or
    /// week) are dropped.
    public var oncePerUntil: [Edge: Instant]

    /// Creates a state; the defaults are those of a rule the engine has not evaluated yet.
    public init(
        confirmed: Bool? = nil, current: Truth = .unknown, hold: Hold? = nil, cooldownUntil: Instant? = nil,
        oncePerUntil: [Edge: Instant] = [:]
    ) {
        self.confirmed = confirmed
        self.current = current
        self.hold = hold
        self.cooldownUntil = cooldownUntil
        self.oncePerUntil = oncePerUntil
    }
}
