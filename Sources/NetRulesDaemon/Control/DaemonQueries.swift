import NetRulesCore

/// What a client of the control socket may ask the running daemon.
///
/// The daemon implements it; the control server only translates requests and answers to JSON
/// lines. Every method is a read: nothing on the socket can change rules, facts or state.
public protocol DaemonQueries: Sendable {
    /// The current facts.
    func facts() async -> FactStore
    /// The rule's condition tree with each node's current value, or nil when there is no such rule.
    func explain(rule: String) async -> Explanation?
    /// The loaded rules' names, in file order.
    func ruleNames() async -> [String]
    /// Fact changes from now on, until the stream's consumer stops.
    func factChanges() async -> AsyncStream<FactChange>
    /// The engine's current time (the `now` it was last given), so `explain` can show a `for:` hold's
    /// deadline as time remaining; nil when the daemon does not say.
    func engineTime() async -> Instant?
}

extension DaemonQueries {
    /// No engine time: `explain` then shows a hold without its remaining time.
    public func engineTime() async -> Instant? { nil }
}

/// One fact's change, as `watch` shows it.
public struct FactChange: Sendable {
    public var key: FactKey
    public var old: FactState
    public var new: FactState
    /// Wall-clock time, RFC 3339.
    public var at: String

    public init(key: FactKey, old: FactState, new: FactState, at: String) {
        self.key = key
        self.old = old
        self.new = new
        self.at = at
    }
}
