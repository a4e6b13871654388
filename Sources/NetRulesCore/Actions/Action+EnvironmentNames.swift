extension Template {
    /// The variables its `{{env.NAME}}` placeholders read, each once, in the order written.
    public var environmentNames: [String] {
        var names: [String] = []
        for case .placeholder(.environment(let name)) in segments where !names.contains(name) { names.append(name) }
        return names
    }
}

extension ConfigValue {
    /// The variables the templates in its strings read with `{{env.NAME}}`, each once, in order.
    public var environmentNames: [String] {
        var names: [String] = []
        collectEnvironmentNames(into: &names)
        return names
    }

    private func collectEnvironmentNames(into names: inout [String]) {
        switch self {
        case .null, .bool, .number: return
        case .string(let text):
            // Validated when the rules loaded; a string that is not a template reads nothing.
            guard text.contains("{{"), let template = try? Template(text) else { return }
            for name in template.environmentNames where !names.contains(name) { names.append(name) }
        case .list(let items):
            for item in items { item.collectEnvironmentNames(into: &names) }
        case .object(let members):
            for member in members { member.value.collectEnvironmentNames(into: &names) }
        }
    }
}

extension Action {
    /// The variables the action reads with `{{env.NAME}}`, each once, in the order written: what
    /// the daemon's environment must set for it to run, and the values its output must not show.
    public var environmentNames: [String] {
        var templates: [Template] = []
        var values: [ConfigValue] = []
        switch self {
        case .run(let run):
            templates = [run.command.template] + run.environment.map(\.value)
        case .webhook(let webhook):
            templates = [webhook.url] + webhook.headers.map(\.value)
            switch webhook.body {
            case .none: break
            case .json(let value): values = [value]
            case .text(let template): templates.append(template)
            }
        case .write(let write):
            templates = [write.content]
        case .mqtt(let mqtt):
            switch mqtt.payload {
            case .none: break
            case .json(let value): values = [value]
            case .text(let template): templates = [template]
            }
        case .plugin(let plugin):
            values = [plugin.options]
        }
        var names: [String] = []
        for name in templates.flatMap(\.environmentNames) + values.flatMap(\.environmentNames)
        where !names.contains(name) {
            names.append(name)
        }
        return names
    }
}
