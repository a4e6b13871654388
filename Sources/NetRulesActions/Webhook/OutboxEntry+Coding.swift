import NetRulesCore

/// The outbox file's codec: an entry is built as a `JSONValue` and read back through
/// `JSONValue.parse` and `JSONValue.Members`, like the daemon's `state.json`.
///
/// The document is the one netrules wrote with `JSONEncoder` before, so files already on disk read
/// and older readers read new ones: camelCase member names (`idempotencyKey`, `actionIndex`,
/// `enqueuedAt`, …), a nil optional left out, `body` as base64 text, a header part as `{"text": …}`
/// or `{"environment": …}`. Integers are written and read exactly: `enqueuedAt` is nanoseconds
/// since the epoch, past what a `Double` holds exactly.
extension OutboxEntry {
    /// The file's document, members in declaration order.
    var document: JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", Self.integer(version)), ("idempotencyKey", .string(idempotencyKey)), ("rule", .string(rule)),
            ("edge", .string(edge)), ("actionIndex", Self.integer(actionIndex)),
            ("enqueuedAt", Self.integer(enqueuedAt)), ("method", .string(method)), ("url", .string(url)),
            ("headers", .array(headers.map(\.document))),
        ]
        if let body { members.append(("body", .string(Base64.encode(body)))) }
        members += [
            ("timeoutMilliseconds", Self.integer(timeoutMilliseconds)), ("attempts", Self.integer(attempts)),
            ("attemptsMade", Self.integer(attemptsMade)), ("backoffMilliseconds", Self.integer(backoffMilliseconds)),
            ("waitsForOnline", .bool(waitsForOnline)),
        ]
        if let pins { members.append(("pins", .array(pins.map(JSONValue.string)))) }
        if let caFile { members.append(("caFile", .string(caFile))) }
        if let secretNonce { members.append(("secretNonce", .string(secretNonce))) }
        if let failure { members.append(("failure", .string(failure))) }
        if let mqtt { members.append(("mqtt", mqtt.document)) }
        return .object(members)
    }

    /// Reads an outbox file.
    /// - Throws: `JSONValue.ShapeError` naming what is wrong and where (a syntax error as one of
    ///   the document).
    init(decoding bytes: [UInt8]) throws(JSONValue.ShapeError) {
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(bytes)
        } catch {
            throw JSONValue.ShapeError(path: "", reason: "not JSON (\(error))")
        }
        try self.init(document: JSONValue.Members(parsed))
    }

    /// Reads an entry's document; a member that is not optional must be there.
    init(document: JSONValue.Members) throws(JSONValue.ShapeError) {
        let d = document
        guard d["headers"] != nil else { throw JSONValue.ShapeError(path: d.path(of: "headers"), reason: "missing") }
        var headers: [Header] = []
        for item in try d.array("headers") {
            headers.append(try Header(document: JSONValue.Members(item.value, path: item.path)))
        }
        var body: [UInt8]?
        if let text = try d.string("body") {
            guard let decoded = Base64.decode(text) else {
                throw JSONValue.ShapeError(path: d.path(of: "body"), reason: "expected base64 text")
            }
            body = decoded
        }
        var pins: [String]?
        if d["pins"] != nil { pins = try d.strings("pins") }
        var mqtt: Publication?
        if let publication = try d.object("mqtt") { mqtt = try Publication(document: publication) }
        self.init(
            version: try Self.required(d, "version", d.integer),
            idempotencyKey: try d.requiredString("idempotencyKey"), rule: try d.requiredString("rule"),
            edge: try d.requiredString("edge"), actionIndex: try Self.required(d, "actionIndex", d.integer),
            enqueuedAt: Int64(try Self.required(d, "enqueuedAt", d.integer)), method: try d.requiredString("method"),
            url: try d.requiredString("url"), headers: headers, body: body,
            timeoutMilliseconds: Int64(try Self.required(d, "timeoutMilliseconds", d.integer)),
            attempts: try Self.required(d, "attempts", d.integer),
            attemptsMade: try Self.required(d, "attemptsMade", d.integer),
            backoffMilliseconds: Int64(try Self.required(d, "backoffMilliseconds", d.integer)),
            waitsForOnline: try Self.required(d, "waitsForOnline", d.bool), pins: pins, caFile: try d.string("caFile"),
            secretNonce: try d.string("secretNonce"), failure: try d.string("failure"), mqtt: mqtt)
    }

    /// An integer as its decimal digits: exact at any size.
    static func integer(_ value: some BinaryInteger) -> JSONValue { .literal(String(value)) }

    /// The member `key` read by `read`, which must be there.
    static func required<T>(
        _ document: JSONValue.Members, _ key: String, _ read: (String) throws(JSONValue.ShapeError) -> T?
    ) throws(JSONValue.ShapeError) -> T {
        guard let value = try read(key) else {
            throw JSONValue.ShapeError(path: document.path(of: key), reason: "missing")
        }
        return value
    }
}

extension OutboxEntry.Header {
    var document: JSONValue {
        .object([("name", .string(name)), ("parts", .array(parts.map(\.document)))])
    }

    init(document: JSONValue.Members) throws(JSONValue.ShapeError) {
        guard document["parts"] != nil else {
            throw JSONValue.ShapeError(path: document.path(of: "parts"), reason: "missing")
        }
        var parts: [OutboxEntry.HeaderPart] = []
        for item in try document.array("parts") {
            let part = try JSONValue.Members(item.value, path: item.path)
            parts.append(
                OutboxEntry.HeaderPart(text: try part.string("text"), environment: try part.string("environment")))
        }
        self.init(name: try document.requiredString("name"), parts: parts)
    }
}

extension OutboxEntry.HeaderPart {
    var document: JSONValue {
        var members: [(String, JSONValue)] = []
        if let text { members.append(("text", .string(text))) }
        if let environment { members.append(("environment", .string(environment))) }
        return .object(members)
    }
}

extension OutboxEntry.Publication {
    var document: JSONValue {
        var members: [(String, JSONValue)] = [("qos", OutboxEntry.integer(qos)), ("retain", .bool(retain))]
        if let firingID { members.append(("firingID", .string(firingID))) }
        return .object(members)
    }

    init(document: JSONValue.Members) throws(JSONValue.ShapeError) {
        self.init(
            qos: try OutboxEntry.required(document, "qos", document.integer),
            retain: try OutboxEntry.required(document, "retain", document.bool),
            firingID: try document.string("firingID"))
    }
}
