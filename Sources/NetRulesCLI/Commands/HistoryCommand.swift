import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
internal import NetRulesSystem

/// `netrules history [--rule NAME] [--since DURATION] [--limit N] [--json]`: what the daemon did.
enum HistoryCommand: Command {
    /// How many firings are shown without `--limit`.
    static let defaultLimit = 20

    static let spec = CommandSpec(
        name: "history",
        abstract: "Show the daemon's recent firings: facts, actions as rendered, outcomes, and dropped edges.",
        discussion: """
            The newest firings, oldest first: when, the rule and edge, the facts the rule read, each action \
            as rendered (secrets as <secret>) with its outcome (exit status or HTTP status, duration, output, \
            webhook retries), and edges that were dropped (cooldown, once_per, stale) with the reason. From \
            the running daemon, else from the history file in its state directory (the daemon keeps the last \
            1000 firings; see 'run --history-limit'). A --rule that is loaded or in the history but has no \
            firings selected prints nothing; a name that is neither is an error with the closest name. With \
            --json, one line per firing: {"version":1,"id":…,"time":…,"rule":…,"edge":…,"facts":{…},\
            "unknown":[…],"actions":[{"type":…,"rendered":…,"outcome":{"status":…,…}}],"dropped":{…}}.
            """,
        options: [
            OptionSpec(long: "rule", valueName: "name", help: "Only this rule's firings."),
            OptionSpec(
                long: "since", valueName: "duration", help: "Only firings at most this long ago (30m, 1h, 2d, 1w)."),
            OptionSpec(
                long: "limit", valueName: "n", help: "Show the newest N firings ('all' for every one kept).",
                defaultValue: String(defaultLimit)),
            .json, .controlSocket, .daemonStateDirectory,
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let query: HistoryQuery
        switch self.query(arguments) {
        case .success(let parsed): query = parsed
        case .failure(let error):
            throw arguments.invalidValue(error.message)
        }
        let (entries, known) = try await self.entries(query, arguments, io)
        if let rule = query.rule, entries.isEmpty, !known.contains(rule) {
            // A name neither loaded nor in the history is a typo more often than a rule long gone.
            var message = "Error: no rule named '\(TerminalText.escaped(rule))' is loaded or in the history"
            if let suggestion = RuleNameSuggestion.closest(to: rule, among: known.sorted()) {
                message += ". Did you mean '\(TerminalText.escaped(suggestion))'?"
            }
            io.printError(message)
            return ExitCode.failure
        }
        if arguments.flag("json") {
            for entry in entries { io.print(entry.document.compact) }
        } else if !entries.isEmpty {
            io.stdout.write(HistoryText.render(entries) { SystemTimeZone.utcOffset(atUnixTime: $0) })
        }
        return ExitCode.success
    }

    struct InvalidOption: Error {
        var message: String
    }

    /// The options as a query; an invalid value is a usage error.
    static func query(_ arguments: ParsedArguments) -> Result<HistoryQuery, InvalidOption> {
        var query = HistoryQuery(rule: arguments.value("rule"), limit: defaultLimit)
        if let since = arguments.value("since") {
            switch DurationSyntax.parseChecked(since) {
            case .success(let duration): query.since = duration
            case .failure(.tooLong):
                return .failure(InvalidOption(message: "--since \(since) is longer than 100 years"))
            case .failure(.notADuration):
                return .failure(
                    InvalidOption(message: "--since takes a duration such as 30m, 1h, 2d or 1w, not '\(since)'"))
            }
        }
        if let limit = arguments.value("limit") {
            if limit == "all" {
                query.limit = nil
            } else if let count = Int(limit), count >= 1 {
                query.limit = count
            } else {
                return .failure(
                    InvalidOption(message: "--limit takes a whole number of at least 1, or 'all', not '\(limit)'"))
            }
        }
        return .success(query)
    }

    /// The selected firings, from the daemon when one answers, else from its state directory, and
    /// the rule names `--rule` may name: the loaded rules' (from a daemon) and those in the history.
    static func entries(_ query: HistoryQuery, _ arguments: ParsedArguments, _ io: CommandIO) async throws
        -> (entries: [HistoryEntry], known: Set<String>)
    {
        let socket = arguments.controlSocket(io)
        if let client = try ControlClient.connect(path: socket) {
            let lines = try await client.responses(to: ControlRequest.history(query).document)
            var entries: [HistoryEntry] = []
            for line in lines {
                if let message = ControlDocuments.errorMessage(in: line) { throw CommandError.runtime(message) }
                guard let entry = HistoryEntry(document: line) else {
                    throw CommandError.runtime("the daemon on \(socket) answered with something that is not a firing")
                }
                entries.append(entry)
            }
            guard let rule = query.rule, entries.isEmpty else { return (entries, []) }
            // Only for a name that matched nothing: the loaded rules and every rule in the history.
            let loaded = try await ControlClient.connect(path: socket)?.response(to: ControlRequest.rules.document)
            var all = HistoryQuery()
            all.limit = nil
            let kept = try await ControlClient.connect(path: socket)?.responses(
                to: ControlRequest.history(all).document)
            var known = Set(loaded.map(ControlDocuments.ruleNames(in:)) ?? [])
            known.formUnion((kept ?? []).compactMap { $0.member("rule")?.stringValue })
            // A daemon that does not answer the names: say nothing rather than a wrong "no rule".
            if known.isEmpty { known.insert(rule) }
            return (entries, known)
        }
        let directory = DaemonPaths.defaults(environment: io.environment, stateDirectory: arguments.value("state-dir"))
            .stateDirectory
        let path = directory + "/" + FiringHistory.fileName
        let contents = FiringHistory.read(path: path)
        io.noDaemon(socket, then: contents.exists ? "history read from \(path)" : "no history file at \(path)")
        let selected = query.select(contents.entries, now: Int64(WallClock.now().secondsSince1970.rounded(.down)))
        var known = Set(contents.entries.map(\.rule))
        // Without a daemon or a history file nothing says which names exist.
        if !contents.exists, let rule = query.rule { known.insert(rule) }
        return (selected, known)
    }
}
