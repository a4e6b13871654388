import NetRulesCore

/// JSON for facts, with sorted keys so output is stable for scripts and golden files.
///
/// Values: text as strings (non-UTF-8 SSID bytes escaped as `\xNN`, like everywhere a person or a
/// script reads them), numbers as numbers, lists as arrays, absent as `null`; NetRulesCore's
/// `JSONValue` writes them. Unknown facts have no JSON form; callers leave their keys out.
enum FactJSON {
    /// A known state as JSON (`null` for absent); nil for unknown.
    static func encode(_ state: FactState) -> JSONValue? {
        switch state {
        case .unknown: nil
        case .absent, .value: JSONValue(state)
        }
    }

    /// An object with its keys sorted.
    static func object(_ members: [String: JSONValue]) -> JSONValue {
        .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}
