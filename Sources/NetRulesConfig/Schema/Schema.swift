public import NetRulesCore

/// Small builders for JSON Schema (draft-07) fragments, so every kind describes itself the same way.
public enum Schema {
    public static func string(_ description: String) -> JSONValue {
        .object([("type", .string("string")), ("description", .string(description))])
    }

    public static func number(_ description: String) -> JSONValue {
        .object([("type", .string("number")), ("description", .string(description))])
    }

    public static func boolean(_ description: String) -> JSONValue {
        .object([("type", .string("boolean")), ("description", .string(description))])
    }

    /// Durations are strings like `10s` or `1h30m`.
    public static func duration(_ description: String) -> JSONValue {
        .object([
            ("type", .string("string")), ("pattern", .string("^([0-9]+(\\.[0-9]+)?(ms|us|µs|s|m|h|d))+$")),
            ("description", .string(description)),
        ])
    }

    /// A scalar of any JSON type.
    public static func scalar(_ description: String) -> JSONValue {
        .object([
            ("type", .array([.string("string"), .string("number"), .string("boolean")])),
            ("description", .string(description)),
        ])
    }

    public static func stringOrList(_ description: String) -> JSONValue {
        anyOf([
            string(description),
            .object([("type", .string("array")), ("minItems", .number(1)), ("items", string(description))]),
        ])
    }

    public static func enumeration(_ words: [String], _ description: String) -> JSONValue {
        .object([("enum", .array(words.map(JSONValue.string))), ("description", .string(description))])
    }

    public static func enumerationOrList(_ words: [String], _ description: String) -> JSONValue {
        anyOf([
            enumeration(words, description),
            .object([("type", .string("array")), ("minItems", .number(1)), ("items", enumeration(words, description))]),
        ])
    }

    public static func anyOf(_ options: [JSONValue]) -> JSONValue {
        .object([("anyOf", .array(options))])
    }

    /// A closed object: unknown keys are errors, as in the loader.
    public static func object(
        _ properties: KeyValuePairs<String, JSONValue>, required: [String], minProperties: Int? = nil,
        description: String? = nil
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string("object"))]
        if let description { members.append(("description", .string(description))) }
        members.append(("properties", .object(properties.map { ($0.key, $0.value) })))
        if !required.isEmpty { members.append(("required", .array(required.map(JSONValue.string)))) }
        if let minProperties { members.append(("minProperties", .number(Double(minProperties)))) }
        members.append(("additionalProperties", .bool(false)))
        return .object(members)
    }
}
