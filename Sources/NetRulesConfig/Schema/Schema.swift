public import NetRulesCore

/// Small builders for JSON Schema (draft 2020-12) fragments, so every kind describes itself the same way.
///
/// netrules gives YAML scalars no implicit types (`ssid: 1234` is the SSID "1234"), while an
/// editor's YAML 1.2 loader reads `1234` as a number and `true` as a boolean: a text field
/// therefore accepts any scalar, as `check` does.
public enum Schema {
    /// A text field; it accepts any scalar, because editors read an unquoted `1234` or `true` as a
    /// number or a boolean.
    public static func string(_ description: String) -> JSONValue {
        .object([
            ("type", .array([.string("string"), .string("number"), .string("boolean")])),
            ("description", .string(description)),
        ])
    }

    /// A MAC address in any spelling the loader accepts: `a4:2b:8c:92:47:3c`, `A4-2B-…`,
    /// `a4 2b …`, `a42b8c92473c`, a dropped leading zero (`a4:2b:8c:92:7:3c`).
    public static func mac(_ description: String) -> JSONValue {
        .object([
            ("type", .string("string")),
            (
                "pattern",
                .string("^ *([0-9A-Fa-f]{1,2}(([:.-]| +)[0-9A-Fa-f]{1,2}){5}|[0-9A-Fa-f]{12}) *$")
            ),
            ("description", .string(description)),
        ])
    }

    /// A MAC address or a non-empty list of them.
    public static func macOrList(_ description: String) -> JSONValue {
        anyOf([
            mac(description),
            .object([("type", .string("array")), ("minItems", .number(1)), ("items", mac(description))]),
        ])
    }

    /// An integer in a range.
    public static func integer(_ description: String, in range: ClosedRange<Int>) -> JSONValue {
        .object([
            ("type", .string("integer")), ("minimum", .number(Double(range.lowerBound))),
            ("maximum", .number(Double(range.upperBound))), ("description", .string(description)),
        ])
    }

    /// A number field.
    public static func number(_ description: String) -> JSONValue {
        .object([("type", .string("number")), ("description", .string(description))])
    }

    /// A boolean field: `true` or `false`.
    public static func boolean(_ description: String) -> JSONValue {
        .object([("type", .string("boolean")), ("description", .string(description))])
    }

    /// Durations are strings like `10s` or `1h30m`.
    public static func duration(_ description: String) -> JSONValue {
        .object([
            ("type", .string("string")), ("pattern", .string("^([0-9]+(\\.[0-9]+)?(ms|us|µs|s|m|h|d|w))+$")),
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

    /// `user:` of a run or plugin action.
    public static let actionUser: JSONValue = .object([
        ("type", .string("string")), ("minLength", .number(1)),
        (
            "description",
            .string(
                "Run as this account (root daemon only; it must exist), or 'active' for the user of the active "
                    + "local graphical session (skipped when there is none)."
            )
        ),
    ])

    /// A text field, or a non-empty list of them.
    public static func stringOrList(_ description: String) -> JSONValue {
        anyOf([
            string(description),
            .object([("type", .string("array")), ("minItems", .number(1)), ("items", string(description))]),
        ])
    }

    /// A field that holds one of `words`.
    public static func enumeration(_ words: [String], _ description: String) -> JSONValue {
        .object([("enum", .array(words.map(JSONValue.string))), ("description", .string(description))])
    }

    /// A field that holds one of `words`, or a non-empty list of them.
    public static func enumerationOrList(_ words: [String], _ description: String) -> JSONValue {
        anyOf([
            enumeration(words, description),
            .object([("type", .string("array")), ("minItems", .number(1)), ("items", enumeration(words, description))]),
        ])
    }

    /// A value that matches at least one of `options`.
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
