public import NetRulesCore

/// The JSON Schema (draft 2020-12) of rule files, for editors' YAML plugins.
///
/// Built from the registry, so an added condition or action kind appears with its own schema.
public enum RuleFileSchema {
    /// The schema of rule files, describing the kinds of `registry`.
    ///
    /// - Parameters:
    ///   - registry: the kinds to describe; the built-ins by default.
    /// - Returns: the whole schema document, ready to print.
    public static func document(registry: Registry = .standard) -> JSONValue {
        let conditionProperties: [(String, JSONValue)] =
            registry.conditionKinds.map { kind in
                (kind.key, withDescription(kind.schema, kind.summary))
            } + [
                (
                    "if_unknown",
                    Schema.boolean("What this condition counts as while it is unknown (default: it stays unknown).")
                )
            ]
        let condition: JSONValue = .object([
            ("type", .string("object")),
            ("description", .string("A condition; several keys in one mapping must all hold.")),
            ("properties", .object(conditionProperties)),
            (
                "patternProperties",
                .object([
                    (
                        "^mqtt\\.[A-Za-z0-9_-]{1,64}$",
                        Schema.anyOf([
                            Schema.scalar("The last message on subscribe:'s topic for NAME is this value."),
                            .object([
                                ("type", .string("array")), ("minItems", .number(1)),
                                ("items", Schema.scalar("One of the values the last message may be.")),
                            ]),
                        ])
                    )
                ])
            ),
            ("additionalProperties", .bool(false)),
            ("minProperties", .number(1)),
        ])
        var actionOptions: [JSONValue] = registry.actionKinds.map { kind in
            .object([
                ("type", .string("object")),
                (
                    "properties",
                    .object([
                        (kind.name, withDescription(kind.schema, kind.summary)),
                        ("continue_on_error", Schema.boolean("Run the firing's next actions even if this one fails.")),
                    ])
                ),
                ("required", .array([.string(kind.name)])),
                ("additionalProperties", .bool(false)),
            ])
        }
        actionOptions.append(
            .object([
                ("type", .string("object")),
                ("description", .string("An external action plugin: the executable netrules-action-NAME.")),
                ("properties", .object([("user", Schema.actionUser)])),
                // Not a plugin when it names any built-in kind (a malformed built-in is an error,
                // not a plugin called "run").
                (
                    "not",
                    .object([
                        (
                            "anyOf",
                            .array(registry.actionKinds.map { .object([("required", .array([.string($0.name)]))]) })
                        )
                    ])
                ),
                ("minProperties", .number(1)),
            ]))
        let duration = Schema.duration("A duration such as 500ms, 10s, 5m, 8h or 1h30m.")
        let rule = Schema.object(
            [
                "name": Schema.string("A unique name, used in logs, templates ({{rule}}) and explain."),
                "description": Schema.string("Free text for people."),
                "when": .object([("$ref", .string("#/$defs/condition"))]),
                "on": Schema.enumerationOrList(["enter", "exit"], "Which edges fire (default: enter)."),
                "for": duration,
                "cooldown": duration,
                "once_per": Schema.enumeration(
                    ["day", "week"], "At most one firing of each edge per local calendar day or ISO week."),
                "do": .object([
                    ("type", .string("array")), ("minItems", .number(1)),
                    ("items", .object([("anyOf", .array(actionOptions))])),
                ]),
            ], required: ["name", "when", "do"])
        let host: JSONValue = Schema.anyOf([
            Schema.string("An address, a DNS name, or NAME:PORT for a TCP probe."),
            Schema.object(
                [
                    "address": Schema.string("An IP address or DNS name."),
                    "port": Schema.number("Probe with a TCP connect to this port instead of ICMP."),
                    "interval": Schema.duration("Time between probe rounds (default: 10s)."),
                    "timeout": Schema.duration("Per-try timeout (default: 500ms)."),
                    "tries": Schema.number("Tries per round (default: 3)."),
                ], required: ["address"]),
        ])
        let proof = Schema.object(
            [
                "https": Schema.string(
                    "HOST, HOST:PORT (default port 443) or an https:// URL to make a TLS handshake to."),
                "pin": Schema.stringOrList(
                    "The accepted public keys: sha256// and the base64 SHA-256 of the SubjectPublicKeyInfo "
                        + "('netrules pin HOST' prints it); several allow a rotation."),
            ], required: ["https", "pin"])
        let place = Schema.object(
            [
                "when": .object([("$ref", .string("#/$defs/condition"))]),
                "verify": .object([
                    ("type", .string("array")),
                    ("description", .string("Proofs that must all pass for the place to be here.")),
                    ("items", proof),
                ]),
                "verify_interval": Schema.duration("How often the proofs run again while 'when' holds (default: 15m)."),
                "timeout": Schema.duration("How long one proof may take (default: 3s)."),
                "description": Schema.string("Free text for people."),
            ], required: ["when"])
        return .object([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string("https://netrules.dev/schema/rules-v1.json")),
            ("title", .string("netrules rule file")),
            ("type", .string("object")),
            ("required", .array([.string("version")])),
            ("additionalProperties", .bool(false)),
            (
                "properties",
                .object([
                    (
                        "version",
                        .object([("const", .number(1)), ("description", .string("The rule language version."))])
                    ),
                    ("rules", .object([("type", .string("array")), ("items", rule)])),
                    ("hosts", .object([("type", .string("object")), ("additionalProperties", host)])),
                    (
                        "connectivity",
                        Schema.object(
                            [
                                "probes": .object([
                                    ("type", .string("array")), ("minItems", .number(1)),
                                    (
                                        "items",
                                        Schema.object(
                                            [
                                                "url": Schema.string("A plain http:// URL."),
                                                "status": Schema.number("The status meaning online (default: 200)."),
                                                "body": Schema.anyOf([
                                                    Schema.string(
                                                        "The page text meaning online (default: Success); null for empty."
                                                    ),
                                                    .object([("type", .string("null"))]),
                                                ]),
                                            ], required: ["url"])
                                    ),
                                ]),
                                "interval": Schema.duration("Re-check period once online (default: 5m)."),
                                "timeout": Schema.duration("Per-probe timeout (default: 5s)."),
                            ], required: [])
                    ),
                    (
                        "wifi",
                        Schema.object(
                            [
                                "source": Schema.enumeration(
                                    WiFiSettings.Source.allCases.map(\.rawValue),
                                    "Where ssid, bssid, signal and frequency come from (default: auto)."),
                                "signal_interval": Schema.duration(
                                    "How often signal is sampled while a rule or a watch client reads it "
                                        + "(default: 5s, at least 1s)."
                                ),
                            ], required: [])
                    ),
                    (
                        "observers",
                        Schema.anyOf([
                            .object([
                                ("type", .string("array")),
                                (
                                    "items",
                                    Schema.anyOf([
                                        Schema.string("A plugin name: netrules-observer-NAME."),
                                        Schema.object(
                                            [
                                                "name": Schema.string("The observer's name."),
                                                "command": Schema.stringOrList("A program and its arguments."),
                                                "provides": Schema.stringOrList(
                                                    "The facts it reports; built-in facts are taken only when listed."),
                                            ], required: ["name"]),
                                    ])
                                ),
                            ]),
                            .object([
                                ("type", .string("object")),
                                ("additionalProperties", Schema.stringOrList("A program and its arguments.")),
                            ]),
                        ])
                    ),
                    ("plugins", Schema.stringOrList("Directories searched for plugins before PATH.")),
                    ("places", .object([("type", .string("object")), ("additionalProperties", place)])),
                    ("mqtt", mqttSchema),
                ])
            ),
            ("$defs", .object([("condition", condition)])),
        ])
    }

    /// `mqtt:` (docs/mqtt.md); the reader is `ValidationContext.mqtt`.
    private static var mqttSchema: JSONValue {
        Schema.object(
            [
                "broker": .object([
                    ("type", .string("string")), ("pattern", .string("^(mqtts?://[^/@?]+/?|unix:/.+)$")),
                    ("description", .string("mqtt://HOST:PORT, mqtts://HOST:PORT (TLS, verified) or unix:/path.")),
                ]),
                "client_id": .object([
                    ("type", .string("string")), ("pattern", .string("^[a-zA-Z0-9_-]{1,64}$")),
                    ("description", .string("The client id (default: derived from the machine id).")),
                ]),
                "username": Schema.string("The user name given to the broker."),
                "password": .object([
                    ("type", .string("string")),
                    ("pattern", .string("^\\{\\{\\s*env\\.[A-Za-z_][A-Za-z0-9_]*\\s*\\}\\}$")),
                    ("description", .string("A secret from the daemon's environment: \"{{env.NAME}}\".")),
                ]),
                "ca_file": Schema.string("CA certificates that verify the broker (default: the system's)."),
                "cert_file": Schema.string("A client certificate (with key_file)."),
                "key_file": Schema.string("The client certificate's private key."),
                "insecure": Schema.boolean("Skip the broker certificate's host-name check (warned by check)."),
                "keepalive": Schema.duration("The MQTT keepalive, 15s to 300s (default: 60s)."),
                "topic_prefix": Schema.string("The topics' prefix (default: netrules/CLIENT_ID)."),
                "publish": .object([
                    ("type", .string("array")), ("items", Schema.string("A fact name.")),
                    (
                        "description",
                        .string("The facts in PREFIX/state (default: ssid, connectivity, place, vpn, network, signal).")
                    ),
                ]),
                "discovery": Schema.anyOf([
                    .object([("const", .bool(false))]),
                    Schema.object(
                        [
                            "prefix": Schema.string("Home Assistant's discovery prefix (default: homeassistant)."),
                            "name": Schema.string("The device's name (default: the host name)."),
                        ], required: []),
                ]),
                "subscribe": .object([
                    ("type", .string("object")),
                    ("additionalProperties", Schema.string("A topic filter; its last message is the fact mqtt.NAME.")),
                ]),
                "commands": Schema.boolean(
                    "Pause and resume rules from PREFIX/rule/NAME/set (ON/OFF), a Home Assistant switch per rule "
                        + "(default: false)."),
            ], required: ["broker"])
    }

    private static func withDescription(_ schema: JSONValue, _ summary: String) -> JSONValue {
        guard case .object(var members) = schema else { return schema }
        if !members.contains(where: { $0.0 == "description" }) { members.append(("description", .string(summary))) }
        return .object(members)
    }
}
