import NetRulesCore

/// One line of an observer plugin's output: a JSON object of facts, decoded into an update.
///
/// Values map as: string → text, number → number, `true`/`false` → bool, `null` → known absent,
/// array of those → list. Nested objects are rejected: a fact is a value, not a record.
package enum PluginLine {
    /// Why a line was skipped.
    package struct Malformed: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// Decodes one line (without its newline).
    package static func parse(_ line: String) -> Result<FactUpdate, Malformed> {
        parse(bytes: Array(line.utf8))
    }

    /// Decodes one line's bytes (without its newline), as the plugin wrote them.
    package static func parse(bytes line: [UInt8]) -> Result<FactUpdate, Malformed> {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            return .failure(Malformed(description: "not JSON"))
        }
        guard case .object(let members) = value else {
            return .failure(Malformed(description: "not a JSON object"))
        }
        var update = FactUpdate()
        for (key, member) in members {
            guard !key.isEmpty, !key.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) else {
                return .failure(Malformed(description: "fact key \"\(key)\" is empty or contains spaces"))
            }
            guard let state = FactState(json: member) else {
                return .failure(Malformed(description: "fact \"\(key)\" \(Self.refusal(member))"))
            }
            update[FactKey(key)] = state
        }
        return .success(update)
    }

    /// Why a value cannot be a fact, in words that name what it holds.
    static func refusal(_ value: JSONValue) -> String {
        switch value {
        case .object: "holds an object; facts are values or lists of values"
        case .array(let items) where items.contains { if case .array = $0 { true } else { false } }:
            "holds a list inside a list; facts are values or lists of values"
        case .array: "holds a list with an object or null in it; facts are values or lists of values"
        default: "holds a value netrules cannot read"
        }
    }
}
