import NetRulesCore
import NetRulesDaemon
package import NetRulesSystem

/// The `netrules` command line: parse → validate → run, with documented exit codes.
///
/// `main.swift` only calls `run` and exits, so every command is testable in-process.
package enum NetRulesCommandLine {
    /// The version `--version` prints.
    package static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        RunCommand.self, CheckCommand.self, SimulateCommand.self, StatusSubcommand.self, WatchSubcommand.self,
        PingSubcommand.self,
        PortalSubcommand.self, ExplainSubcommand.self, SchemaCommand.self, DoctorCommand.self, FactsCommand.self,
        ReloadCommand.self, HistoryCommand.self, RulesCommand.self, CompletionsCommand.self, PinCommand.self,
    ]

    static let root = CommandSpec(
        name: "netrules",
        abstract: "Run actions when the network changes.",
        discussion: """
            Rules in YAML say when (the Wi-Fi you join, a captive portal, a host that stops \
            answering) and what (run a command, send a webhook, write a file). The rule language is \
            in 'man netrules-rules'; the guides (rules, plugins, install, security, troubleshooting) \
            and example rules are in /usr/share/doc/netrules/ (docs/ in the source tree).
            """,
        subcommands: commands.map { $0.spec }
    )

    /// Runs the command line `arguments` (without argv[0]) and returns the exit code; its tasks,
    /// timers and waits run on `loop`.
    package static func run(
        arguments: [String], stdout: any TextOutputSink, stderr: any TextOutputSink, environment: [String: String],
        loop: ThreadExecutor
    ) async -> Int32 {
        await ArgumentParser(root: root, version: version).run(
            arguments, stdout: stdout, stderr: stderr, environment: environment, loop: loop
        ) { parsed, io in
            guard let name = parsed.commandPath.dropFirst().first,
                let command = commands.first(where: { $0.spec.name == name })
            else { return nil }
            return try await command.run(parsed, io)
        }
    }
}
