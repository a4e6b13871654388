import NetRulesCore

/// The JSON document a `run` command or a plugin reads on standard input.
///
/// `{"version":1,"rule":…,"edge":…,"time":…,"facts":{…},"facts_hex":{…},"options":{…}}`.
/// `facts` holds every known fact (`null` when known absent; unknown facts are left out).
/// `facts_hex` holds, for each text fact whose bytes are not valid UTF-8, those bytes in
/// lower-case hex; in `facts` such text uses `\udcXX` escapes (see `JSONWriter`). `options` is a
/// plugin's own options from the rule, rendered; it is present only for plugins.
enum FiringDocument {
    /// The version this code writes; bumped when a field changes meaning.
    static let version = 1

    static func render(_ context: ActionContext, options: ConfigValue? = nil) -> [UInt8] {
        var json = JSONWriter()
        let known = context.firing.facts.known
        json.raw("{")
        json.key("version")
        json.raw(String(version))
        json.raw(",")
        json.key("rule")
        json.string(context.firing.rule)
        json.raw(",")
        json.key("edge")
        json.string(context.firing.edge.rawValue)
        json.raw(",")
        json.key("time")
        json.string(context.wallTime)
        json.raw(",")
        json.key("facts")
        json.object(known) { json, fact in
            json.key(fact.key.rawValue)
            if let value = fact.state.value { json.factValue(value) } else { json.raw("null") }
        }
        let raw = known.compactMap { fact -> (FactKey, [UInt8])? in
            if case .value(.bytes(let bytes)) = fact.state { return (fact.key, bytes) }
            return nil
        }
        if !raw.isEmpty {
            json.raw(",")
            json.key("facts_hex")
            json.object(raw) { json, fact in
                json.key(fact.0.rawValue)
                json.string(JSONWriter.hex(fact.1))
            }
        }
        if let options {
            json.raw(",")
            json.key("options")
            json.configValue(options, context: context)
        }
        json.raw("}\n")
        return json.bytes
    }
}

extension JSONWriter {
    /// Writes a rule's JSON-shaped value; each string is rendered as a template, and the result
    /// (substituted values included) is escaped as one JSON string.
    /// - Parameter secrets: When given, `{{env.NAME}}` is written as a token for delivery time
    ///   instead of the value (see `SecretTokens`).
    mutating func configValue(_ value: ConfigValue, context: ActionContext, secrets: SecretTokens? = nil) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): raw(flag ? "true" : "false")
        case .number(let number): self.number(number)
        case .string(let text):
            if let template = try? Template(text) {
                raw("\"")
                for segment in template.segments {
                    switch segment {
                    case .literal(let literal): stringContent(bytes: Array(literal.utf8))
                    case .placeholder(.environment(let name)) where secrets != nil:
                        raw(String(decoding: secrets!.token(name, .json), as: UTF8.self))
                    case .placeholder(let name): stringContent(bytes: context.templateContext.bytes(for: name))
                    }
                }
                raw("\"")
            } else {
                // Validated at load time; an unparsable string is kept literally rather than lost.
                string(text)
            }
        case .list(let items): array(items) { $0.configValue($1, context: context, secrets: secrets) }
        case .object(let members):
            object(members) { json, member in
                json.key(member.key)
                json.configValue(member.value, context: context, secrets: secrets)
            }
        }
    }
}
