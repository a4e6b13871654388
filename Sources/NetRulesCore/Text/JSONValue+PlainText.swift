extension JSONValue {
    /// A scalar as a person reads it (`none` for null), through ``TerminalText`` so a value cannot forge lines or
    /// drive the terminal.
    ///
    /// The text renderers of `status`, `watch`, `explain` and `history` read their JSON documents
    /// through this, so a daemon's answer and a direct reading print alike.
    package var plainText: String {
        switch self {
        case .string(let s): return TerminalText.escaped(s)
        case .bytes(let b): return TerminalText.escaped(bytes: b)
        case .null: return "none"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return FactValue.format(n)
        case .literal(let text): return text
        case .array, .object: return TerminalText.escaped(compact)
        }
    }

    /// A fact's state from its JSON: `unknown` when left out, `none` when absent (as in every
    /// text netrules prints), lists in brackets.
    package static func stateText(_ value: JSONValue?) -> String {
        guard let value else { return "unknown" }
        switch value {
        case .null: return "none"
        case .array(let items): return "[" + items.map(\.plainText).joined(separator: ", ") + "]"
        default: return value.plainText
        }
    }
}
