import NetRulesCore
import NetRulesDaemon

/// `netrules reload`: asks the running daemon to re-read its rule files.
enum ReloadCommand: Command {
    static let spec = CommandSpec(
        name: "reload",
        abstract: "Ask the running daemon to re-read its rule files, and say how it went.",
        discussion: """
            The same as SIGHUP (or systemctl reload netrules), through the control socket, which only \
            root and the daemon's own user may use. On success prints the number of rules now running. \
            When a file is broken, prints its diagnostics, exits 65, and the rules already running keep \
            running. Exits 1 when no daemon answers.
            """,
        options: [.json, .controlSocket, .daemonStateDirectory]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let socket = arguments.controlSocket(io)
        guard let client = try ControlClient.connect(path: socket) else {
            throw CommandError.runtime(
                CommandIO.noDaemonAnswered(socket) + "; start it, or name its --socket or --state-dir")
        }
        let answer = try await client.response(to: ControlRequest.reload.document)
        if let message = ControlDocuments.errorMessage(in: answer) { throw CommandError.runtime(message) }
        let reloaded = answer.member("reloaded").flatMap { if case .bool(let b) = $0 { b } else { nil } } ?? false
        let rules = Int(answer.member("rules")?.numberValue ?? 0)
        let diagnostics = answer.member("rendered")?.stringValue ?? ""
        if arguments.flag("json") {
            io.print(answer.compact)
        } else {
            if !diagnostics.isEmpty { io.stderr.write(TerminalText.escapedLines(diagnostics)) }
            io.print(
                reloaded
                    ? "reloaded: \(rules) rule\(rules == 1 ? "" : "s") running"
                    : "reload refused: the \(rules) rule\(rules == 1 ? "" : "s") already running keep running")
        }
        return reloaded ? ExitCode.success : ExitCode.invalidRules
    }
}
