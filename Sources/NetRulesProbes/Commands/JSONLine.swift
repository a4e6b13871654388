@preconcurrency import Glibc

/// Builds one JSON object with keys in the order given (no Foundation in this target).
struct JSONLine {
    enum Value {
        case string(String)
        case int(Int)
        case milliseconds(Duration)
        case number(Double)
        case bool(Bool)
        case null
        case raw(String)
    }

    private var fields: [(String, Value)] = [("version", .int(1))]

    subscript(key: String) -> Value? {
        get { fields.first { $0.0 == key }?.1 }
        set { if let newValue { fields.append((key, newValue)) } }
    }

    var text: String {
        "{" + fields.map { "\(Self.quote($0.0)):\(Self.render($0.1))" }.joined(separator: ",") + "}"
    }

    private static func render(_ value: Value) -> String {
        switch value {
        case .string(let s): quote(s)
        case .int(let i): String(i)
        case .milliseconds(let d): formatMilliseconds(d)
        case .number(let n): n.isFinite ? String(n) : "null"
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        case .raw(let r): r
        }
    }

    static func quote(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
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

/// Writes a line to standard error (the default destination for command diagnostics).
@usableFromInline @Sendable func writeToStandardError(_ line: String) {
    fputs(line + "\n", stderr)
}
