import NetRulesCore

/// Hand-rolled JSON for facts, with sorted keys so output is stable for scripts and golden files.
///
/// Values: text as strings (non-UTF-8 SSID bytes escaped as `\xNN`, like everywhere a person or a
/// script reads them), numbers as numbers, lists as arrays, absent as `null`. Unknown facts have no
/// JSON form; callers leave their keys out.
enum FactJSON {
    /// A value as JSON.
    static func encode(_ value: FactValue) -> String {
        switch value {
        case .string, .bytes: string(value.stringValue ?? "")
        case .number(let n): n.isFinite ? FactValue.format(n) : "null"
        case .bool(let b): b ? "true" : "false"
        case .list(let items): "[" + items.map(encode).joined(separator: ",") + "]"
        }
    }

    /// A known state as JSON (`null` for absent); nil for unknown.
    static func encode(_ state: FactState) -> String? {
        switch state {
        case .unknown: nil
        case .absent: "null"
        case .value(let v): encode(v)
        }
    }

    /// An object from already-encoded members, keys sorted.
    static func object(_ members: [String: String]) -> String {
        "{" + members.sorted { $0.key < $1.key }.map { "\(string($0.key)):\($0.value)" }.joined(separator: ",") + "}"
    }

    /// A JSON string literal.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
