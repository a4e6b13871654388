import NetRulesCore

/// The JSON document a `run` command or a plugin reads on standard input.
///
/// `{"version":1,"rule":…,"edge":…,"time":…,"facts":{…},"facts_hex":{…},"options":{…}}`.
/// `facts` holds every known fact (`null` when known absent; unknown facts are left out).
/// `facts_hex` holds, for each text fact whose bytes are not valid UTF-8, those bytes in
/// lower-case hex; in `facts` such text uses `\udcXX` escapes (see `JSONValue.bytes`). `options` is a
/// plugin's own options from the rule, rendered; it is present only for plugins.
enum FiringDocument {
    /// The version this code writes; bumped when a field changes meaning.
    static let version = 1

    static func render(_ context: ActionContext, options: ConfigValue? = nil) -> [UInt8] {
        // The members before and after the facts; the facts' own are made once per store
        // (`RenderedFacts`) and spliced in between.
        let head = JSONValue.object([
            ("version", .number(Double(version))), ("rule", .string(context.firing.rule)),
            ("edge", .string(context.firing.edge.rawValue)), ("time", .string(context.wallTime)),
        ]).compact
        var document = Array(head.utf8.dropLast())
        document += [UInt8(ascii: ",")] + context.renderedFacts.documentMembers
        if let options {
            let tail = JSONValue.object([("options", json(options, context: context))]).compact
            document += [UInt8(ascii: ",")] + Array(tail.utf8.dropFirst().dropLast())
        }
        document += Array("}\n".utf8)
        return document
    }

    /// A rule's JSON-shaped value; each string is rendered as a template, and the result
    /// (substituted values included) is one JSON string.
    /// - Parameter secrets: When given, `{{env.NAME}}` is written as a token for delivery time
    ///   instead of the value (see `SecretTokens`).
    static func json(_ value: ConfigValue, context: ActionContext, secrets: SecretTokens? = nil) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .number(number)
        case .string(let text):
            // Validated at load time; an unparsable string is kept literally rather than lost.
            guard let template = try? Template(text) else { return .string(text) }
            var bytes: [UInt8] = []
            for segment in template.segments {
                switch segment {
                case .literal(let literal): bytes += literal.utf8
                case .placeholder(.environment(let name)) where secrets != nil:
                    bytes += secrets!.token(name, .json)
                case .placeholder(let name): bytes += context.templateContext.bytes(for: name)
                }
            }
            return .text(bytes)
        case .list(let items): return .array(items.map { json($0, context: context, secrets: secrets) })
        case .object(let members):
            return .object(members.map { ($0.key, json($0.value, context: context, secrets: secrets)) })
        }
    }
}
