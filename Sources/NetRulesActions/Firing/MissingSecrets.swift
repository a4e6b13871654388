import NetRulesCore

/// An action that reads `{{env.NAME}}` when the daemon's environment does not set NAME fails
/// before it starts: an empty `Authorization: Bearer ` header or a command run with an empty
/// argument is never what the rule meant. A variable set to the empty string counts as unset.
///
/// The failure is final (a webhook is not retried): the environment is read once, when netrules
/// starts, so no later attempt of this process could find the value.
enum MissingSecrets {
    /// Those of `names` that `environment` leaves unset or empty, in order.
    static func missing(_ names: [String], in environment: [String: String]) -> [String] {
        names.filter { (environment[$0] ?? "").isEmpty }
    }

    /// The failure of an action that reads the variables `missing`.
    /// - Parameter outcome: what did not happen, for the end of the message: `nothing was sent`.
    static func error(_ missing: [String], environment: [String: String], outcome: String) -> ActionError {
        func listed(_ names: [String], _ one: String, _ many: String) -> String? {
            guard !names.isEmpty else { return nil }
            let placeholders = names.map { "{{env.\($0)}}" }
            let list =
                placeholders.count == 1
                ? placeholders[0] : placeholders.dropLast().joined(separator: ", ") + " and " + placeholders.last!
            return list + (names.count == 1 ? one : many)
        }
        let unset = listed(missing.filter { environment[$0] == nil }, " is not set", " are not set")
        let empty = listed(missing.filter { environment[$0] != nil }, " is empty", " are empty")
        return ActionError(
            .missingSecret,
            [unset, empty].compactMap { $0 }.joined(separator: " and ") + " in the daemon's environment; \(outcome) "
                + "(set it in the file the systemd unit's EnvironmentFile= names, /etc/netrules/environment, "
                + "and restart netrules)")
    }

    /// What an action of `kind` did not do, for the message.
    static func outcome(of action: Action) -> String {
        switch action {
        case .run: "the command was not started"
        case .webhook: "nothing was sent"
        case .write: "nothing was written"
        case .mqtt: "nothing was published"
        case .plugin(let plugin): "the plugin '\(plugin.name)' was not started"
        }
    }
}
