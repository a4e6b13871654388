import NetRulesCore
import NetRulesSystem

/// What an action would do for a firing, rendered as the runner would render it but without
/// running anything: `simulate` prints it under each firing.
///
/// Secrets (`{{env.NAME}}`) show as `<secret>` wherever they stand. Bytes that are not UTF-8 show
/// as U+FFFD here (the action itself gets the exact bytes). The lines for people go through
/// ``TerminalText`` (a rendered SSID or portal URL cannot drive the terminal); the JSON is exact.
package struct ActionPreview: Sendable {
    /// The action's kind (`run`, `webhook`, `write`, or the plugin's name).
    package var kind: String
    /// One line for people: `run: notify-send 'Joined Office'`.
    package var summary: String
    /// Further lines (a webhook's headers and body), for people.
    package var details: [String]
    /// For `run:` and plugin actions, the variables the runner sets for the process beside the
    /// daemon's own environment, as `NAME=value` lines for people (sorted by name; `{{env.NAME}}`
    /// in an `env:` value as `<secret>`): `NETRULES_EDGE=enter`, `NETRULES_SSID=Office`, ….
    package var environment: [String] = []
    /// The same, as JSON for `simulate --json`: `{"run": {"command": …}}`.
    package var json: JSONValue

    /// Renders `spec` for `firing` at `wallTime` (RFC 3339 in UTC; `{{time}}` shows it in the zone
    /// `utcOffset` gives, the machine's unless pinned).
    /// - Parameter withEnvironment: false leaves `environment` empty (in `json` too), for a
    ///   caller that keeps only the summary: the history, at every firing, where the variables of
    ///   every known fact cost more than the rest of the firing.
    package static func render(
        _ spec: ActionSpec, of firing: Firing, wallTime: String,
        utcOffset: (Int64) -> Int64 = { SystemTimeZone.utcOffset(atUnixTime: $0) }, withEnvironment: Bool = true
    ) -> ActionPreview {
        let context = ActionContext(firing: firing, wallTime: wallTime, environment: [:], utcOffset: utcOffset)
        var masked = context.templateContext
        masked.masksSecrets = true
        switch spec.action {
        case .run(let run):
            let command = text(run.command.render(masked))
            let variables =
                withEnvironment
                ? FiringEnvironment.entries(
                    for: context, extra: run.environment.map { (name: $0.name, value: $0.value.renderBytes(masked)) })
                : []
            return ActionPreview(
                kind: "run", summary: "run: " + TerminalText.escaped(command), details: [],
                environment: variables.map { TerminalText.escaped(bytes: $0) },
                json: .object([
                    (
                        "run",
                        .object([("command", .string(command)), ("environment", environmentJSON(variables))])
                    )
                ]))
        case .webhook(let webhook):
            let entry = WebhookRendering.entry(for: webhook, in: context, actionIndex: 0)
            let headers = entry.headers.map { header in
                (header.name, header.parts.map { $0.text ?? "<secret>" }.joined())
            }
            let body = entry.body.map { bytes in
                text(
                    entry.secretNonce.map { SecretTokens(nonce: $0).substitute(in: bytes, environment: nil) }
                        ?? bytes)
            }
            var details = headers.map { TerminalText.escaped("\($0.0): \($0.1)") }
            if let body { details.append(TerminalText.escaped(body)) }
            return ActionPreview(
                kind: "webhook", summary: "webhook: " + TerminalText.escaped("\(entry.method) \(entry.displayURL)"),
                details: details,
                json: .object([
                    (
                        "webhook",
                        .object([
                            ("method", .string(entry.method)), ("url", .string(entry.displayURL)),
                            ("headers", .object(headers.map { ($0.0, .string($0.1)) })),
                            ("body", body.map(JSONValue.string) ?? .null),
                        ])
                    )
                ]))
        case .write(let write):
            let content = text(write.content.renderBytes(masked))
            // `owner:` as written: whom `active` means is known only when the action runs.
            let how = (write.append ? "append" : "replace") + (write.owner.map { ", owner \($0)" } ?? "")
            var members: [(String, JSONValue)] = [("path", .string(write.path)), ("append", .bool(write.append))]
            if let owner = write.owner { members.append(("owner", .string(owner.description))) }
            members.append(("content", .string(content)))
            return ActionPreview(
                kind: "write",
                summary: "write: " + TerminalText.escaped(write.path) + " (" + TerminalText.escaped(how) + "): "
                    + TerminalText.escaped(content),
                details: [],
                json: .object([("write", .object(members))]))
        case .mqtt(let mqtt):
            return mqttPreview(mqtt, context: context)
        case .plugin(let plugin):
            let path = plugin.executablePath ?? "(not found)"
            let variables =
                withEnvironment
                ? FiringEnvironment.entries(
                    for: context, extra: [(name: "NETRULES_ACTION", value: Array(plugin.name.utf8))]) : []
            return ActionPreview(
                kind: plugin.name,
                summary: TerminalText.escaped("\(plugin.name): the plugin \(path), the firing as JSON on its input"),
                details: [], environment: variables.map { TerminalText.escaped(bytes: $0) },
                json: .object([
                    (
                        plugin.name,
                        .object([("plugin", .string(path)), ("environment", environmentJSON(variables))])
                    )
                ]))
        }
    }

    /// An `mqtt:` action: its topic (or why the values make none) and payload, secrets masked.
    private static func mqttPreview(_ mqtt: MQTTAction, context: ActionContext) -> ActionPreview {
        let qos = "qos \(mqtt.qos)\(mqtt.retain ? ", retained" : "")"
        switch MQTTRendering.entry(for: mqtt, in: context, actionIndex: 0) {
        case .failure(let error):
            return ActionPreview(
                kind: "mqtt", summary: "mqtt: " + TerminalText.escaped("\(error.message) (nothing would be published)"),
                details: [],
                json: .object([
                    ("mqtt", .object([("error", .string(error.message)), ("qos", .number(Double(mqtt.qos)))]))
                ]))
        case .success(let entry):
            let payload = text(
                entry.secretNonce.map {
                    SecretTokens(nonce: $0).substitute(in: entry.body ?? [], environment: nil)
                }
                    ?? (entry.body ?? []))
            return ActionPreview(
                kind: "mqtt", summary: "mqtt: " + TerminalText.escaped("\(entry.url) (\(qos))"),
                details: payload.isEmpty ? [] : [TerminalText.escaped(payload)],
                json: .object([
                    (
                        "mqtt",
                        .object([
                            ("topic", .string(entry.url)), ("qos", .number(Double(mqtt.qos))),
                            ("retain", .bool(mqtt.retain)), ("payload", .string(payload)),
                        ])
                    )
                ]))
        }
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// `NAME=value` entries as a JSON object in their (sorted) order.
    private static func environmentJSON(_ entries: [[UInt8]]) -> JSONValue {
        .object(
            entries.map { entry in
                let equals = entry.firstIndex(of: UInt8(ascii: "=")) ?? entry.endIndex
                let value = equals < entry.endIndex ? entry[(equals + 1)...] : []
                return (text(Array(entry[..<equals])), .string(text(Array(value))))
            })
    }
}
