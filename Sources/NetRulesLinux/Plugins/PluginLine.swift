import FoundationEssentials
import NetRulesCore

/// One line of an observer plugin's output: a JSON object of facts, decoded into an update.
///
/// Values map as: string → text, number → number, `true`/`false` → bool, `null` → known absent,
/// array of those → list. Nested objects are rejected: a fact is a value, not a record.
enum PluginLine {
    /// Why a line was skipped.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Decodes one line (without its newline).
    static func parse(_ line: String) -> Result<FactUpdate, Malformed> {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
        } catch {
            return .failure(Malformed(description: "not JSON"))
        }
        guard case .object(let members) = value else {
            return .failure(Malformed(description: "not a JSON object"))
        }
        var update = FactUpdate()
        for (key, member) in members {
            guard !key.isEmpty, !key.contains(where: { $0 == " " || $0 == "\t" }) else {
                return .failure(Malformed(description: "fact key \"\(key)\" is empty or contains spaces"))
            }
            guard let state = member.factState else {
                return .failure(Malformed(description: "fact \"\(key)\" holds an object; facts are values or lists"))
            }
            update[FactKey(key)] = state
        }
        return .success(update)
    }

    /// A decoded JSON value.
    enum JSONValue: Decodable {
        case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let b = try? container.decode(Bool.self) {
                self = .bool(b)
            } else if let n = try? container.decode(Double.self) {
                self = .number(n)
            } else if let s = try? container.decode(String.self) {
                self = .string(s)
            } else if let a = try? container.decode([JSONValue].self) {
                self = .array(a)
            } else {
                self = .object(try container.decode([String: JSONValue].self))
            }
        }

        var factValue: FactValue? {
            switch self {
            case .null, .object: nil
            case .bool(let b): .bool(b)
            case .number(let n): .number(n)
            case .string(let s): .string(s)
            case .array(let items):
                items.allSatisfy { $0.factValue != nil } ? .list(items.compactMap(\.factValue)) : nil
            }
        }

        var factState: FactState? {
            if case .null = self { return .absent }
            return factValue.map(FactState.value)
        }
    }
}
