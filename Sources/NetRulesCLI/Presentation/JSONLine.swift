import NetRulesCore

/// Builds one JSON object with keys in the order given, starting with `"version": 1` (STYLE §22).
///
/// The text comes from NetRulesCore's `JSONValue`, so escaping matches every other `--json` output.
struct JSONLine {
    enum Value {
        case string(String)
        case int(Int)
        case milliseconds(Duration)
        case bool(Bool)
        case null
        /// A nested value, such as another line's `json` or an array of them.
        case json(JSONValue)
    }

    private var fields: [(String, Value)] = [("version", .int(1))]

    subscript(key: String) -> Value? {
        get { fields.first { $0.0 == key }?.1 }
        set { if let newValue { fields.append((key, newValue)) } }
    }

    /// The object, for nesting in another line.
    var json: JSONValue {
        .object(fields.map { ($0.0, Self.json($0.1)) })
    }

    /// The object on one line.
    var text: String { json.compact }

    private static func json(_ value: Value) -> JSONValue {
        switch value {
        case .string(let s): .string(s)
        // Literals, so integers print as integers however large, and milliseconds keep their three decimals.
        case .int(let i): .literal(String(i))
        case .milliseconds(let d): .literal(formatMilliseconds(d))
        case .bool(let b): .bool(b)
        case .null: .null
        case .json(let value): value
        }
    }
}

/// Milliseconds with three decimals, as ping prints them: `0.071`.
func formatMilliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    let whole = microseconds / 1000
    let fraction = String(abs(microseconds % 1000))
    return "\(whole).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}
