import NetRulesCore

/// One request line of the control protocol, parsed.
///
/// `{"version":1,"command":"status"}`, `{"version":1,"command":"explain","rule":"NAME"}`,
/// `{"version":1,"command":"facts"}`, `{"version":1,"command":"watch"}`, `{"version":1,"command":"rules"}` or
/// `{"version":1,"command":"history","rule":"NAME","since_seconds":3600,"limit":20}` (each filter
/// optional).
package enum ControlRequest: Equatable, Sendable {
    /// The known facts: answered with `ControlDocuments.status`.
    case status
    /// The known facts and each fact's source as the daemon runs it: answered with
    /// `ControlDocuments.status` and its `sources`. A daemon older than this request answers
    /// `unknown command 'facts'`, and `netrules facts` then asks for `status`.
    case facts
    /// One rule's condition tree: answered with `ControlDocuments.explain`, or an error document.
    case explain(rule: String)
    /// Fact changes as they happen: answered with one `ControlDocuments.change` line per change.
    case watch
    /// Every loaded rule with its truth, state and last firing: answered with `ControlDocuments.rules`.
    case rules
    /// Re-read the rule files: answered with `ControlDocuments.reload` once done.
    case reload
    /// Recent firings: answered with one `HistoryEntry.document` line per firing, oldest first,
    /// then the daemon closes the connection.
    case history(HistoryQuery)

    /// The request as the JSON line a client sends.
    package var document: JSONValue {
        let version: (String, JSONValue) = ("version", .number(Double(ControlDocuments.version)))
        switch self {
        case .status: return .object([version, ("command", .string("status"))])
        case .facts: return .object([version, ("command", .string("facts"))])
        case .watch: return .object([version, ("command", .string("watch"))])
        case .rules: return .object([version, ("command", .string("rules"))])
        case .reload: return .object([version, ("command", .string("reload"))])
        case .explain(let rule): return .object([version, ("command", .string("explain")), ("rule", .string(rule))])
        case .history(let query):
            var members: [(String, JSONValue)] = [version, ("command", .string("history"))]
            if let rule = query.rule { members.append(("rule", .string(rule))) }
            if let since = query.since { members.append(("since_seconds", .number(DurationSyntax.seconds(since)))) }
            if let limit = query.limit { members.append(("limit", .number(Double(limit)))) }
            return .object(members)
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
        case "facts": return .success(.facts)
        case "watch": return .success(.watch)
        case "rules": return .success(.rules)
        case "reload": return .success(.reload)
        case "explain":
            guard let rule = document.member("rule")?.stringValue else {
                return .failure(RequestError(message: "explain needs a \"rule\""))
            }
            return .success(.explain(rule: rule))
        case "history":
            return historyQuery(document).map(ControlRequest.history)
        default:
            return .failure(RequestError(message: "unknown command '\(command)'"))
        }
    }

    private static func historyQuery(_ document: JSONValue) -> Result<HistoryQuery, RequestError> {
        var query = HistoryQuery()
        if let rule = document.member("rule") {
            guard let name = rule.stringValue else {
                return .failure(RequestError(message: "\"rule\" must be a string"))
            }
            query.rule = name
        }
        if let since = document.member("since_seconds") {
            let limit = DurationSyntax.seconds(DurationSyntax.maximum)
            guard let seconds = since.numberValue, seconds.isFinite, seconds >= 0, seconds <= limit else {
                return .failure(RequestError(message: "\"since_seconds\" must be a number of seconds up to 100 years"))
            }
            query.since = DurationSyntax.duration(seconds: seconds)
        }
        if let limit = document.member("limit") {
            guard let count = limit.numberValue, count.isFinite, count >= 0, count <= 1e9, count.rounded() == count
            else { return .failure(RequestError(message: "\"limit\" must be a whole number")) }
            query.limit = Int(count)
        }
        return .success(query)
    }

    /// Why a line is not a request; answered as `{"version":1,"error":MESSAGE}`.
    package struct RequestError: Error, Equatable {
        var message: String
    }
}
