/// What the engine remembers about one rule between updates.
///
/// `Codable` so the daemon can persist it: a restart must neither repeat nor lose a firing.
public struct RuleState: Hashable, Sendable, Codable {
    /// A pending `for:` hold: the edge fires at `deadline` unless the condition leaves `target` first.
    public struct Hold: Hashable, Sendable, Codable {
        /// The truth value being held.
        public var target: Bool
        /// When the hold completes.
        public var deadline: Instant
        /// A hold restored after a restart waits for the condition to be known again: unknown
        /// (the observers have not reported yet) neither cancels nor completes it, so a restart
        /// neither loses nor restarts a hold.
        public var awaitsConfirmation: Bool

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
    public var current: TruthValue
    public var hold: Hold?
    /// Firings before this instant are dropped.
    public var cooldownUntil: Instant?

    public init(
        confirmed: Bool? = nil, current: TruthValue = .unknown, hold: Hold? = nil, cooldownUntil: Instant? = nil
    ) {
        self.confirmed = confirmed
        self.current = current
        self.hold = hold
        self.cooldownUntil = cooldownUntil
    }
}

/// `Truth` as a `Codable` value for persisted state.
public typealias TruthValue = Truth

extension Truth: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = text == "true" ? .true : text == "false" ? .false : .unknown
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
