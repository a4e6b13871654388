import FoundationEssentials
import NetRulesCore
import NetRulesDaemon
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
            1000 firings; see 'run --history-limit'). A rule name that matches nothing prints nothing. With \
            --json, one line per firing: {"version":1,"id":…,"time":…,"rule":…,"edge":…,"facts":{…},\
            "unknown":[…],"actions":[{"type":…,"rendered":…,"outcome":{"status":…,…}}],"dropped":{…}}.
            """,
        options: [
            OptionSpec(long: "rule", valueName: "name", help: "Only this rule's firings."),
            OptionSpec(
                long: "since", valueName: "duration", help: "Only firings at most this long ago (30m, 1h, 2d)."),
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
        let entries = try await self.entries(query, arguments, io)
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
                    InvalidOption(message: "--since takes a duration such as 30m, 1h or 2d, not '\(since)'"))
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

    /// The selected firings, from the daemon when one answers, else from its state directory.
    static func entries(_ query: HistoryQuery, _ arguments: ParsedArguments, _ io: CommandIO) async throws
        -> [HistoryEntry]
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
            return entries
        }
        let directory = DaemonPaths.defaults(environment: io.environment, stateDirectory: arguments.value("state-dir"))
            .stateDirectory
        let path = directory + "/" + FiringHistory.fileName
        let contents = FiringHistory.read(path: path)
        io.printError(
            "note: no netrules daemon answers on \(socket); "
                + (contents.exists ? "history read from \(path)" : "no history file at \(path)"))
        return query.select(contents.entries, now: Int64(Date().timeIntervalSince1970.rounded(.down)))
    }
}
