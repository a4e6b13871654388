import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
internal import NetRulesSystem

/// `netrules rules [--rules PATH…] [--json]`: every rule with its truth, what it waits for, what
/// drops its firings and when it last fired.
enum RulesCommand: Command {
    static let spec = CommandSpec(
        name: "rules",
        abstract: "List every rule with its truth now, pending for: hold, cooldown or once_per drop, and last firing.",
        discussion: """
            Asks the running netrules daemon when one answers on the control socket. Otherwise reads the \
            rule files as 'check' does (--rules, else the daemon's rule directory) and the last firings from \
            the history file in the state directory; every truth is then unknown, and the output says so \
            (source: rule files). Times are local, with their offset. On a terminal (or with COLUMNS set) \
            the PENDING, DROPPING and LAST FIRING columns wrap to its width; a pipe gets one line a rule. \
            With --json, one document: \
            {"version":1,"source":"daemon"|"files","rules":[{"name":…,"truth":"true"|"false"|"unknown",\
            "state":{…}|null,"last_firing":{"time":…,"edge":…}|null}]}, where state is the object \
            'explain --json' shows. While the daemon's last reload failed, the rules listed are the previous \
            ones: a line above them says 'rules: FILE has errors since TIME (N); running the previous rules', \
            and the document ends with the "failed_reload" object 'status --json' shows.
            """,
        options: [
            OptionSpec(
                long: "rules", valueName: "path",
                help: "A rule file or directory of *.yaml files, used when no daemon answers (repeatable).",
                isRepeating: true),
            .json, .controlSocket, .daemonStateDirectory,
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let socket = arguments.controlSocket(io)
        let document: JSONValue
        if let client = try ControlClient.connect(path: socket) {
            document = try await client.response(to: ControlRequest.rules.document)
            if let message = ControlDocuments.errorMessage(in: document) { throw CommandError.runtime(message) }
        } else {
            try ExplainSubcommand.requireDaemonWhenNamed(
                arguments, socket: socket, fallback: "list them from the files")
            let paths = arguments.values("rules")
            let defaults = DaemonPaths.defaults(
                environment: io.environment, stateDirectory: arguments.value("state-dir"))
            let files = paths.isEmpty ? [defaults.ruleDirectory] : paths
            io.noDaemon(socket, then: "rules read from \(files.joined(separator: ", ")), so every truth is unknown")
            let loaded = try RuleFiles.load(files, environment: io.environment)
            if !loaded.diagnostics.isEmpty { io.stderr.write(loaded.renderedDiagnostics()) }
            guard !loaded.hasErrors else { return ExitCode.invalidRules }
            let history = FiringHistory.read(path: defaults.stateDirectory + "/" + FiringHistory.fileName).entries
            document = ControlDocuments.rules(names: loaded.ruleSet.rules.map(\.name), history: history)
        }
        io.stdout.write(
            arguments.flag("json")
                ? RulesDocument.json(document)
                : RulesDocument.text(
                    document,
                    width: TerminalWidth.forTables(environment: io.environment, isTerminal: io.stdout.isTerminal)
                ) { SystemTimeZone.utcOffset(atUnixTime: $0) })
        return ExitCode.success
    }
}
