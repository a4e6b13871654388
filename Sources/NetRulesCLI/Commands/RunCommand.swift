import NetRulesActions
import NetRulesCore
import NetRulesDaemon

/// `netrules run [RULES…]`: the daemon, in the foreground (systemd-friendly).
enum RunCommand: Command {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Run the daemon in the foreground: watch the network and act on the rules.",
        discussion: """
            Rules default to /etc/netrules/*.yaml (as root) or ~/.config/netrules/*.yaml. SIGHUP, or \
            a change to a rule file, reloads them: a broken file keeps the running rules. SIGTERM or \
            SIGINT stops after running actions finish; the exit code is then 0. With NOTIFY_SOCKET set \
            (systemd Type=notify), readiness, reloads and shutdown are reported.
            """,
        arguments: [
            ArgumentSpec(
                name: "rules", help: "Rule files or directories of *.yaml files.", isOptional: true, isRepeating: true,
                completion: .files)
        ],
        options: [
            OptionSpec(
                long: "state-dir", valueName: "dir",
                help:
                    "What survives a restart: rule state, the webhook outbox (default: /var/lib/netrules as root, else $XDG_STATE_HOME/netrules)."
            ),
            OptionSpec(
                long: "socket", valueName: "path",
                help:
                    "The control socket the client commands use (default: /run/netrules/control.sock as root, else under $XDG_RUNTIME_DIR).",
                aliases: ["control-socket"]),
            OptionSpec(
                long: "history-limit", valueName: "n",
                help: "How many firings 'netrules history' can show (in <state-dir>/history.jsonl); 0 keeps none.",
                defaultValue: "1000"),
        ] + outboxOptions + [
            OptionSpec(
                long: "webhook-concurrency", valueName: "n",
                help:
                    "How many webhook requests may be under way at once to one host (scheme, host and port); \(ActionRunner.webhookConcurrencyTotal) in all. One rule's webhooks still go one at a time, in order.",
                defaultValue: "\(ActionRunner.defaultWebhookConcurrency)"),
            OptionSpec(
                long: "log-level", valueName: "level", help: "The lowest level logged.", defaultValue: "notice",
                allowedValues: Logger.Level.allCases.map(\.description)),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let environment = io.environment
        let paths = DaemonPaths.defaults(
            environment: environment, stateDirectory: arguments.value("state-dir"),
            controlSocket: arguments.value("socket"))
        let ruleFiles = arguments.positional("rules").isEmpty ? [paths.ruleDirectory] : arguments.positional("rules")
        guard let historyLimit = Int(arguments.value("history-limit") ?? "1000"), historyLimit >= 0,
            historyLimit <= 1_000_000
        else {
            throw arguments.invalidValue("--history-limit takes a whole number from 0 to 1000000")
        }
        let outboxLimits: OutboxLimits
        switch Self.outboxLimits(arguments) {
        case .success(let limits): outboxLimits = limits
        case .failure(let error): throw arguments.invalidValue(error.message)
        }
        let webhookConcurrency = try Self.webhookConcurrency(arguments)
        let level = Logger.Level.allCases.first { $0.description == arguments.value("log-level") } ?? .notice
        let logger = Logger(
            label: "netrules.daemon", level: level, sink: StandardErrorLogSink(environment: environment))
        var options = DaemonOptions(
            loop: io.loop, ruleFiles: ruleFiles, paths: paths, environment: environment, logger: logger,
            historyLimit: historyLimit, outboxLimits: outboxLimits)
        options.webhookConcurrency = webhookConcurrency
        return await DaemonServiceGroup(options: options, version: NetRulesCommandLine.version).run()
    }

    /// How many webhook requests may be under way at once to one host (`--webhook-concurrency`).
    /// - Throws: A usage error for a value that is not a whole number from 1 to the total limit.
    static func webhookConcurrency(_ arguments: ParsedArguments) throws -> Int {
        let total = ActionRunner.webhookConcurrencyTotal
        guard let text = arguments.value("webhook-concurrency") else { return ActionRunner.defaultWebhookConcurrency }
        guard let value = Int(text), (1...total).contains(value) else {
            throw arguments.invalidValue("--webhook-concurrency takes a whole number from 1 to \(total), not '\(text)'")
        }
        return value
    }
}
