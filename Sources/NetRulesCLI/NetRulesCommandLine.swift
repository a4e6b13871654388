import NetRulesCore
import NetRulesDaemon

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
        ReloadCommand.self, HistoryCommand.self, CompletionsCommand.self, PinCommand.self,
    ]

    static let root = CommandSpec(
        name: "netrules",
        abstract: "Run actions when the network changes.",
        discussion: """
            Rules in YAML say when (the Wi-Fi you join, a captive portal, a host that stops \
            answering) and what (run a command, send a webhook, write a file). See docs/rules.md.
            """,
        subcommands: commands.map { $0.spec }
    )

    /// Runs the command line `arguments` (without argv[0]) and returns the exit code.
    package static func run(
        arguments: [String], stdout: any TextOutputSink, stderr: any TextOutputSink, environment: [String: String]
    ) async -> Int32 {
        let parser = ArgumentParser(root: root, version: version)
        let outcome: ParseOutcome
        do {
            outcome = try parser.parse(arguments)
        } catch {
            stderr.write(parser.errorText(error))
            return ExitCode.usage
        }
        let io = CommandIO(stdout: stdout, stderr: stderr, environment: environment)
        switch outcome {
        case .version:
            io.print(version)
            return ExitCode.success
        case .help(let path):
            stdout.write(parser.helpText(for: path, width: TerminalWidth.current(environment: environment)))
            return ExitCode.success
        case .run(let parsed):
            guard let name = parsed.commandPath.dropFirst().first,
                let command = commands.first(where: { $0.spec.name == name })
            else {
                stdout.write(
                    parser.helpText(for: parsed.commandPath, width: TerminalWidth.current(environment: environment)))
                return ExitCode.success
            }
            do {
                return try await command.run(parsed, io)
            } catch let error as UsageError {
                stderr.write(parser.errorText(error))
                return ExitCode.usage
            } catch CommandError.runtime(let message) {
                io.printError("Error: " + TerminalText.escapedLines(message))
                return ExitCode.failure
            } catch CommandError.noInput(let message) {
                io.printError("Error: " + TerminalText.escapedLines(message))
                return ExitCode.noInput
            } catch let error as RuleFiles.ReadError {
                io.printError("Error: " + TerminalText.escapedLines("\(error)"))
                return ExitCode.noInput
            } catch {
                io.printError("Error: " + TerminalText.escapedLines("\(error)"))
                return ExitCode.failure
            }
        }
    }
}
