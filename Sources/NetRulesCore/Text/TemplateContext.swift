/// The values a template is rendered with: the facts when the rule fired, and the firing itself.
public struct TemplateContext: Sendable {
    /// The facts when the rule fired; fact placeholders read them.
    public var facts: FactStore
    /// The firing rule's name, for `{{rule}}`.
    public var rule: String
    /// The edge that fired, for `{{edge}}`.
    public var edge: Edge
    /// The firing's local time with its offset, already formatted as RFC 3339 by the caller (the
    /// core reads no clock and knows no time zone), for `{{time}}`.
    public var time: String
    /// The same instant in UTC (`…Z`), for `{{time.utc}}`.
    public var utcTime: String
    /// The environment `{{env.NAME}}` reads.
    public var environment: [String: String]
    /// Whether `{{env.NAME}}` renders as `<secret>` (previews, logs) instead of its value.
    public var masksSecrets = false

    /// Creates the context of one firing, with secrets shown (`masksSecrets` false).
    ///
    /// - Parameters:
    ///   - time: the firing's local time with its offset, already formatted as RFC 3339.
    ///   - utcTime: the same instant in UTC as RFC 3339; `time` when not given.
    ///   - environment: the variables `{{env.NAME}}` may read.
    public init(
        facts: FactStore, rule: String, edge: Edge, time: String, utcTime: String? = nil,
        environment: [String: String] = [:]
    ) {
        self.facts = facts
        self.rule = rule
        self.edge = edge
        self.time = time
        self.utcTime = utcTime ?? time
        self.environment = environment
    }

    /// The bytes a placeholder stands for; unknown and absent facts render as empty.
    public func bytes(for name: TemplateName) -> [UInt8] {
        switch name {
        case .fact(let key): facts[key].value?.plainBytes ?? []
        case .rule: Array(rule.utf8)
        case .edge: Array(edge.rawValue.utf8)
        case .time: Array(time.utf8)
        case .utcTime: Array(utcTime.utf8)
        case .environment(let variable):
            masksSecrets ? Array("<secret>".utf8) : Array((environment[variable] ?? "").utf8)
        }
    }
}
