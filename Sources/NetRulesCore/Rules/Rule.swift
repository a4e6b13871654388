/// One compiled rule: when its condition changes, fire the chosen edges' actions.
public struct Rule: Sendable {
    /// The rule's unique name.
    public var name: String
    /// The `when:` condition, compiled; the engine re-evaluates it whenever a fact it reads changes.
    public var condition: any Condition
    /// Which edges fire actions (`on:`); the default is `[.enter]`.
    public var edges: Set<Edge>
    /// `for:`: an edge fires only once the condition has stayed so this long.
    public var hold: Duration
    /// `cooldown:`: after a firing, this rule's firings are dropped for this long.
    public var cooldown: Duration
    /// `once_per:`: at most one firing of each edge per local calendar day or ISO week.
    public var oncePer: CalendarPeriod?
    /// The `do:` list, run in order.
    public var actions: [ActionSpec]
    /// Where the rule was defined, e.g. `rules/office.yaml:4:5`.
    public var origin: String
    /// A canonical digest of the rule's definition (its actions included): a firing in flight
    /// is resumed after a restart only for the rule it was made by.
    public var fingerprint: String
    /// A canonical digest of the rule's condition (`when:`), or the fingerprint when it has none
    /// of its own. A rule's state belongs to its name and this: an edit that keeps both
    /// (`description:`, `do:`, `for:`) keeps the whole state; one that changes the condition keeps
    /// the `once_per:`/`cooldown:` windows and the confirmed truth and evaluates the new condition.
    public var identity: String

    /// Creates a rule; each default is what a rule file gets when it leaves the key out.
    ///
    /// - Parameters:
    ///   - origin: where the rule was defined, shown in diagnostics and `explain`.
    ///   - fingerprint: the digest a reload compares to keep the rule's state (see `fingerprint`).
    public init(
        name: String, condition: any Condition, edges: Set<Edge> = [.enter], hold: Duration = .zero,
        cooldown: Duration = .zero, oncePer: CalendarPeriod? = nil, actions: [ActionSpec] = [], origin: String = "",
        fingerprint: String = "", identity: String = ""
    ) {
        self.oncePer = oncePer
        self.name = name
        self.condition = condition
        self.edges = edges
        self.hold = hold
        self.cooldown = cooldown
        self.actions = actions
        self.origin = origin
        self.fingerprint = fingerprint
        self.identity = identity.isEmpty ? fingerprint : identity
    }
}

/// A local calendar period, for `once_per:`.
public enum CalendarPeriod: String, Sendable, Hashable {
    /// Local midnight to midnight.
    case day
    /// Monday 00:00 to the next Monday 00:00 (ISO weeks).
    case week
}
