import NetRulesCore

/// One request line of the control protocol, parsed.
///
/// `{"version":1,"command":"status"}`, `{"version":1,"command":"explain","rule":"NAME"}`,
/// `{"version":1,"command":"watch"}` or `{"version":1,"command":"rules"}`.
public enum ControlRequest: Equatable, Sendable {
    /// The known facts: answered with `ControlDocuments.status`.
    case status
    /// One rule's condition tree: answered with `ControlDocuments.explain`, or an error document.
    case explain(rule: String)
    /// Fact changes as they happen: answered with one `ControlDocuments.change` line per change.
    case watch
    /// The loaded rules' names: answered with `ControlDocuments.rules`.
    case rules
    /// Re-read the rule files: answered with `ControlDocuments.reload` once done.
    case reload

    /// The request as the JSON line a client sends.
    public var document: JSONValue {
        let version: (String, JSONValue) = ("version", .number(Double(ControlDocuments.version)))
        switch self {
        case .status: return .object([version, ("command", .string("status"))])
        case .watch: return .object([version, ("command", .string("watch"))])
        case .rules: return .object([version, ("command", .string("rules"))])
        case .reload: return .object([version, ("command", .string("reload"))])
        case .explain(let rule): return .object([version, ("command", .string("explain")), ("rule", .string(rule))])
        }
    }

    /// Parses a line (without its newline).
    /// - Returns: the request, or the message of the error document to answer with.
    package static func parse(_ line: [UInt8]) -> Result<ControlRequest, RequestError> {
        let document: JSONValue
        do {
            document = try JSONValue.parse(line)
        } catch {
            return .failure(RequestError(message: "invalid request: \(error)"))
        }
        guard case .object = document else {
            return .failure(RequestError(message: "invalid request: expected a JSON object"))
        }
        guard let version = document.member("version")?.numberValue else {
            return .failure(RequestError(message: "invalid request: missing \"version\""))
        }
        guard version == Double(ControlDocuments.version) else {
            return .failure(
                RequestError(message: "unsupported version \(FactValue.format(version)); this daemon speaks version 1"))
        }
        guard let command = document.member("command")?.stringValue else {
            return .failure(RequestError(message: "invalid request: missing \"command\""))
        }
        switch command {
        case "status": return .success(.status)
        case "watch": return .success(.watch)
        case "rules": return .success(.rules)
        case "reload": return .success(.reload)
        case "explain":
            guard let rule = document.member("rule")?.stringValue else {
                return .failure(RequestError(message: "explain needs a \"rule\""))
            }
            return .success(.explain(rule: rule))
        default:
            return .failure(RequestError(message: "unknown command '\(command)'"))
        }
    }

    /// Why a line is not a request; answered as `{"version":1,"error":MESSAGE}`.
    package struct RequestError: Error, Equatable {
        var message: String
    }
}
