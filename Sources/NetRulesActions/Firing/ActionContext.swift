import NetRulesCore

/// Everything an action needs to render its templates: the firing, its wall-clock time and the
/// daemon's environment.
struct ActionContext: Sendable {
    var firing: Firing
    /// RFC 3339, as the runner's caller formatted it.
    var wallTime: String
    /// The daemon's environment: passed to processes and read by `{{env.NAME}}`.
    var environment: [String: String]
    /// `environment` as processes inherit it, prepared once by the runner.
    var baseEnvironment: FiringEnvironment.Base
    /// The values of the variables the firing's actions read with `{{env.NAME}}`, to mask in
    /// what they print.
    var secrets: SecretRedaction

    init(
        firing: Firing, wallTime: String, environment: [String: String],
        baseEnvironment: FiringEnvironment.Base? = nil
    ) {
        self.firing = firing
        self.wallTime = wallTime
        self.environment = environment
        self.baseEnvironment = baseEnvironment ?? FiringEnvironment.Base(environment)
        secrets = SecretRedaction(actions: firing.actions, environment: environment)
    }

    var templateContext: TemplateContext {
        TemplateContext(
            facts: firing.facts, rule: firing.rule, edge: firing.edge, time: wallTime, environment: environment
        )
    }

    /// Renders `template` with `escape` applied to each substituted value.
    func render(_ template: Template, escape: ([UInt8]) -> [UInt8] = { $0 }) -> [UInt8] {
        template.renderBytes(templateContext, escape: escape)
    }
}
