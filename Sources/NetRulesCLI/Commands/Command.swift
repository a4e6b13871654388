import NetRulesCore
package import NetRulesSystem

/// One `netrules` subcommand: its spec (for parsing and help) and its body.
protocol Command: SendableMetatype {
    static var spec: CommandSpec { get }
    /// Runs the command after parsing and validation; returns the exit code.
    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32
}

/// Where a command writes, what it may read of its environment, and the event loop its tasks,
/// timers and waits run on.
package struct CommandIO: Sendable {
    package let stdout: any TextOutputSink
    package let stderr: any TextOutputSink
    package let environment: [String: String]
    /// The event loop: the `netrules` executable's main thread (`runOnCurrentThread`), the tests'
    /// own loop in-process.
    package let loop: ThreadExecutor
    /// Whether stdout shows colour (a terminal, no `NO_COLOR`), decided once.
    package let stdoutStyle: TerminalStyle
    /// Whether stderr shows colour, for diagnostics.
    package let stderrStyle: TerminalStyle

    package init(
        stdout: any TextOutputSink, stderr: any TextOutputSink, environment: [String: String], loop: ThreadExecutor
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.loop = loop
        stdoutStyle = TerminalStyle.decide(environment: environment, isTerminal: stdout.isTerminal)
        stderrStyle = TerminalStyle.decide(environment: environment, isTerminal: stderr.isTerminal)
    }

    /// Prints one line to stdout.
    package func print(_ line: String) {
        stdout.write(line + "\n")
    }

    /// Prints one line to stderr.
    package func printError(_ line: String) {
        stderr.write(line + "\n")
    }
}

extension OptionSpec {
    /// `--json`, the same everywhere.
    package static let json = OptionSpec(long: "json", help: "Print JSON (each object carries \"version\": 1).")
}
