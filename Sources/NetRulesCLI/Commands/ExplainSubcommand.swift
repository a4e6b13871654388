import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesLinux

/// `netrules explain RULE [--rules FILE…] [--json] [--socket PATH]`: why a rule is or
/// isn't true now.
enum ExplainSubcommand: Command {
    static let spec = CommandSpec(
        name: "explain",
        abstract: "Show why a rule is or isn't true now: its condition tree with each node's value.",
        discussion: """
            Asks the running netrules daemon when one answers on the control socket. Otherwise loads \
            the rules (--rules, else the daemon's rule directory) and evaluates them against a direct \
            reading of the system; facts only the daemon's probes know (connectivity, portal.url, \
            hosts.*) are then unknown; given --socket or --state-dir but no --rules, it fails instead, naming the \
            socket it tried. Each node shows true, false or unknown, followed by the facts the condition read \
            (clock.local, the local time a time: window compared, as that time: Tue 07:00:10 +01:00); drop \
            times are local with their offset, as in 'history'. With --json, one document: {"version":1,"rule":…,"truth":…,"tree":…, \
            "facts":{…},"unknown":[…],"state":{…}}, and for a rule that reads a place \
            "places":[{"name":…,"when":…,"condition_truth":…,"proofs":[…],"status":…,"proof":…,"reason":…}]: \
            each place with its condition, its proofs and the last proof's outcome and reason.
            """,
        arguments: [ArgumentSpec(name: "rule", help: "The rule's name.", completion: .ruleNames)],
        options: [
            OptionSpec(
                long: "rules", valueName: "path",
                help: "A rule file or directory of *.yaml files, used when no daemon answers (repeatable).",
                isRepeating: true),
            .json,
            .controlSocket,
            .daemonStateDirectory,
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let rule = arguments.positional("rule")[0]
        let json = arguments.flag("json")
        let socket = arguments.controlSocket(io)
        let document: JSONValue
        let source: String
        if let client = try ControlClient.connect(path: socket) {
            document = try await client.response(to: ControlRequest.explain(rule: rule).document)
            if let message = ControlDocuments.errorMessage(in: document) {
                // The daemon says only "no rule named"; ask for the names to suggest one.
                let answer = try await ControlClient.connect(path: socket)?.response(to: ControlRequest.rules.document)
                let known = answer.map(ControlDocuments.ruleNames(in:)) ?? []
                if !known.isEmpty, !known.contains(rule) { return noRule(rule, among: known, io) }
                throw CommandError.runtime(message)
            }
            source = "daemon"
        } else {
            let paths = arguments.values("rules")
            try requireDaemonWhenNamed(arguments, socket: socket, fallback: "explain from the files")
            io.noDaemon(socket)
            let loaded = try RuleFiles.load(
                paths.isEmpty ? [DaemonPaths.defaults(environment: io.environment).ruleDirectory] : paths,
                environment: io.environment)
            if !loaded.diagnostics.isEmpty { io.stderr.write(loaded.renderedDiagnostics()) }
            guard !loaded.hasErrors else { return ExitCode.invalidRules }
            let snapshot: NetworkSnapshot
            do {
                snapshot = try NetworkSnapshot.current()
            } catch {
                throw CommandError.runtime("cannot read the network state: \(error)")
            }
            var engine = Engine(rules: loaded.ruleSet.rules, places: loaded.ruleSet.places)
            _ = engine.apply(FactUpdate(snapshot.facts), at: .zero)
            guard let explanation = engine.explain(rule: rule) else {
                return noRule(rule, among: loaded.ruleSet.rules.map(\.name), io)
            }
            document = ControlDocuments.explain(explanation, now: .zero)
            source = "snapshot"
        }
        io.stdout.write(json ? ExplainDocument.json(document) : ExplainDocument.text(document, source: source))
        return ExitCode.success
    }

    /// A command told which daemon to ask (`--socket`, `--state-dir`) and given no `--rules` fails
    /// when that daemon does not answer, naming the socket, rather than reading the default rule
    /// directory, which belongs to another daemon.
    static func requireDaemonWhenNamed(_ arguments: ParsedArguments, socket: String, fallback: String) throws {
        guard arguments.values("rules").isEmpty, arguments.value("socket") != nil || arguments.value("state-dir") != nil
        else { return }
        throw CommandError.runtime(
            CommandIO.noDaemonAnswered(socket) + "; start it, or give --rules FILE to \(fallback)")
    }

    /// `Error: no rule named 'X'`, with a suggestion when one name is close; exit 1.
    private static func noRule(_ rule: String, among names: [String], _ io: CommandIO) -> Int32 {
        var message = "Error: no rule named '\(rule)'"
        if let suggestion = RuleNameSuggestion.closest(to: rule, among: names) {
            message += ". Did you mean '\(suggestion)'?"
        }
        io.printError(message)
        return ExitCode.failure
    }
}
