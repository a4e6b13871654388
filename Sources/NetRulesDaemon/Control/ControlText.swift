import NetRulesCore

/// The human forms of the control protocol's documents, as `status`, `watch` and `explain` print
/// them. They read the JSON documents, so a daemon's answer and a local fallback print alike.
public enum ControlText {
    /// `netrules daemon: N facts`, then each fact's key and value in two aligned columns.
    ///
    /// Absent facts and empty lists read `none`, list items are joined with `, `, as the
    /// daemon-less `status` shows them.
    public static func status(_ document: JSONValue) -> String {
        guard case .object(let facts)? = document.member("facts") else {
            return "netrules daemon: 0 facts\n"
        }
        var lines = ["netrules daemon: \(facts.count) fact\(facts.count == 1 ? "" : "s")"]
        let width = (facts.map(\.0.count).max() ?? 0) + 2
        for (key, value) in facts {
            let shown: String
            switch value {
            case .null: shown = "none"
            case .array(let items): shown = items.isEmpty ? "none" : items.map(plain).joined(separator: ", ")
            default: shown = plain(value)
            }
            lines.append(key + String(repeating: " ", count: width - key.count) + shown)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One `watch` line, as the daemon-less `watch` prints it: `HH:MM:SS  KEY  OLD -> NEW`, with
    /// `unknown` for a left-out side and `null` for known absent.
    public static func change(_ document: JSONValue) -> String {
        let at = document.member("at")?.stringValue ?? ""
        let time = at.split(separator: "T").last.map { $0.hasSuffix("Z") ? String($0.dropLast()) : String($0) } ?? at
        let key = document.member("key")?.stringValue ?? "?"
        return "\(time)  \(key)  \(state(document.member("old"))) -> \(state(document.member("new")))\n"
    }

    /// `rule NAME: TRUE (source: SOURCE)`, the condition tree one node a line (the layout of
    /// `Explanation.text`), then `facts read:` with each fact the condition read.
    /// - Parameters:
    ///   - document: an `explain` answer (`ControlDocuments.explain`).
    ///   - source: where the facts came from: `daemon` or `snapshot`.
    public static func explain(_ document: JSONValue, source: String) -> String {
        let rule = document.member("rule")?.stringValue ?? "?"
        let truth = document.member("truth")?.stringValue ?? "unknown"
        var lines = ["rule \(rule): \(truth.uppercased()) (source: \(source))"]
        func walk(_ node: JSONValue, depth: Int) {
            let truth = node.member("truth")?.stringValue ?? "unknown"
            let condition = node.member("condition")?.stringValue ?? ""
            // The same columns as `Explanation.text`: the truth padded to 8, two spaces per level.
            let padded = truth.count >= 8 ? truth + " " : truth + String(repeating: " ", count: 8 - truth.count)
            lines.append(String(repeating: "  ", count: depth) + padded + condition)
            if case .array(let children)? = node.member("children") {
                for child in children { walk(child, depth: depth + 1) }
            }
        }
        if let tree = document.member("tree") { walk(tree, depth: 0) }
        var facts: [(String, String)] = []
        if case .object(let known)? = document.member("facts") {
            facts += known.map { ($0.0, state($0.1)) }
        }
        if case .array(let unknown)? = document.member("unknown") {
            facts += unknown.compactMap { $0.stringValue.map { ($0, "unknown") } }
        }
        facts.sort { $0.0 < $1.0 }
        lines.append("facts read:" + (facts.isEmpty ? " none" : ""))
        let width = (facts.map(\.0.count).max() ?? 0) + 2
        for (key, value) in facts {
            lines.append("  " + key + String(repeating: " ", count: width - key.count) + value)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A fact's state from its JSON: `unknown` when left out, `null` when absent, lists in brackets.
    static func state(_ value: JSONValue?) -> String {
        guard let value else { return "unknown" }
        switch value {
        case .null: return "null"
        case .array(let items): return "[" + items.map(plain).joined(separator: ", ") + "]"
        default: return plain(value)
        }
    }

    /// A scalar as a person reads it; control characters escaped so a value cannot forge lines.
    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let s):
            var out = ""
            for scalar in s.unicodeScalars {
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\x" + (hex.count == 1 ? "0" : "") + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            return out
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return FactValue.format(n)
        case .literal(let text): return text
        case .array, .object: return value.compact
        }
    }
}
