import NetRulesCore
import NetRulesSystem

/// Everything an action needs to render its templates: the firing, its wall-clock time and the
/// daemon's environment.
struct ActionContext: Sendable {
    var firing: Firing
    /// RFC 3339 in UTC, as the runner's caller formatted it: what history, the outbox, plugin JSON
    /// and `{{time.utc}}` carry.
    var wallTime: String
    /// The same instant in local time with its offset (`2026-12-02T07:00:10+01:00`), for `{{time}}`
    /// and `NETRULES_TIME`; `wallTime` itself when it is not RFC 3339.
    var localTime: String
    /// The daemon's environment: passed to processes and read by `{{env.NAME}}`.
    var environment: [String: String]
    /// `environment` as processes inherit it, prepared once by the runner.
    var baseEnvironment: FiringEnvironment.Base
    /// The firing's facts as variables and document members, shared with the other firings of
    /// the same store.
    var renderedFacts: RenderedFacts
    /// The values of the variables the firing's actions read with `{{env.NAME}}`, to mask in
    /// what they print.
    var secrets: SecretRedaction

    /// - Parameter utcOffset: the seconds east of UTC in force at a Unix time: the machine's zone
    ///   (`TZ`, else `/etc/localtime`) unless a caller pins one (`simulate`'s virtual clock, tests).
    init(
        firing: Firing, wallTime: String, environment: [String: String],
        baseEnvironment: FiringEnvironment.Base? = nil, renderedFacts: RenderedFacts? = nil,
        utcOffset: (Int64) -> Int64 = { SystemTimeZone.utcOffset(atUnixTime: $0) }
    ) {
        self.firing = firing
        self.wallTime = wallTime
        localTime =
            LocalTime.unixTime(rfc3339: wallTime).map { LocalTime.rfc3339(unixTime: $0, utcOffset: utcOffset($0)) }
            ?? wallTime
        self.environment = environment
        self.baseEnvironment = baseEnvironment ?? FiringEnvironment.Base(environment)
        self.renderedFacts = renderedFacts.flatMap { $0.isFor(firing.facts) ? $0 : nil } ?? RenderedFacts(firing.facts)
        secrets = SecretRedaction(actions: firing.actions, environment: environment)
    }

    var templateContext: TemplateContext {
        TemplateContext(
            facts: firing.facts, rule: firing.rule, edge: firing.edge, time: localTime, utcTime: wallTime,
            environment: environment
        )
    }

    /// Renders `template` with `escape` applied to each substituted value.
    func render(_ template: Template, escape: ([UInt8]) -> [UInt8] = { $0 }) -> [UInt8] {
        template.renderBytes(templateContext, escape: escape)
    }
}
