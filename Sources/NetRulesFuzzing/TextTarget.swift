import NetRulesCore

/// `text`: the small parsers of rule-file values, and templates rendered with facts from the input.
///
/// The input is `TEXT` or `TEXT NUL VALUE NUL VALUE …`: every parser reads `TEXT` whole and each
/// of its lines; the values (any bytes) become the facts and environment the templates render.
enum TextTarget {
    static func run(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false)
        let text = String(decoding: parts[0], as: UTF8.self)
        let values = parts.dropFirst().map(Array.init)
        var pieces = [text]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1 { pieces += lines.map(String.init) }
        for piece in pieces {
            parsers(piece)
            templates(piece, values: values)
        }
    }

    /// Durations, MAC and IP addresses and CIDR blocks, with the round trips their printers promise.
    static func parsers(_ text: String) {
        if case .success(let duration) = DurationSyntax.parseChecked(text) {
            require(duration >= .zero && duration <= DurationSyntax.maximum, "duration \(duration) out of range")
            let printed = DurationSyntax.format(duration)
            require(DurationSyntax.parse(printed) != nil, "format(parse('\(text)')) = '\(printed)' does not parse")
        }
        if let mac = MACAddress(text) {
            require(MACAddress(mac.description) == mac, "MAC '\(text)' prints as '\(mac)', which reads differently")
        }
        if let address = IPAddress(text) {
            require(IPAddress(address.description) == address, "IP '\(text)' prints as '\(address)'")
            keep(CIDR(text)?.contains(address))
        }
        if let block = CIDR(text) {
            require(CIDR(block.description) == block, "CIDR '\(text)' prints as '\(block)'")
            keep(block.contains(block.address))
        }
        keep(TemplateName(text)?.environmentVariable)
    }

    /// The text as a template and as a `run:` command, each rendered with the input's values.
    static func templates(_ text: String, values: [[UInt8]]) {
        // Text that is not a template is tried as a run: command below, then dropped; only a crash
        // is a finding.
        guard let template = try? Template(text) else {
            // Rejected text is a valid outcome for a fuzz input; only a crash is a finding.
            keep(try? ShellCommandTemplate(text))
            return
        }
        let context = context(for: template.names, values: values)
        keep(template.renderBytes(context))
        keep(template.render(context) { $0.reversed() })
        switch Result(catching: { () throws(ShellCommandRefusal) in try ShellCommandTemplate(template) }) {
        case .success(let command):
            require(command.contexts.count == template.names.count, "a quoting context per placeholder")
            keep(command.render(context))
        case .failure(let refusal):
            keep(refusal.issues.map(\.message))
        }
    }

    /// A context in which the template's placeholders stand for the input's values, round-robin,
    /// as text (valid UTF-8 or not), a number, a Boolean or a list.
    static func context(for names: [TemplateName], values: [[UInt8]]) -> TemplateContext {
        var update = FactUpdate()
        var environment: [String: String] = [:]
        for (i, name) in names.enumerated() {
            let value = values.isEmpty ? [] : values[i % values.count]
            switch name {
            case .fact(let key):
                let fact: FactValue =
                    switch i % 5 {
                    case 0, 1: .text(value)
                    case 2: .number(Double(value.count) - 1.5)
                    case 3: .bool(value.count % 2 == 0)
                    default: .list([.text(value), .string("x"), .number(2)])
                    }
                update[key] = .value(fact)
            case .environment(let variable):
                environment[variable] = String(decoding: value, as: UTF8.self)
            case .rule, .edge, .time, .utcTime:
                break
            }
        }
        var facts = FactStore()
        facts.apply(update)
        let time = String(decoding: values.last ?? [], as: UTF8.self)
        return TemplateContext(
            facts: facts, rule: String(decoding: values.first ?? [], as: UTF8.self), edge: .exit, time: time,
            environment: environment)
    }
}
