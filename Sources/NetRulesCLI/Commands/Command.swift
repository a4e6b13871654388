import NetRulesCore

/// One `netrules` subcommand: its spec (for parsing and help) and its body.
protocol Command: SendableMetatype {
    static var spec: CommandSpec { get }
    /// Runs the command after parsing and validation; returns the exit code.
    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32
}

/// Where a command writes, and what it may read of its environment.
struct CommandIO: Sendable {
    let stdout: any TextOutputSink
    let stderr: any TextOutputSink
    let environment: [String: String]

    /// Prints one line to stdout.
    func print(_ line: String) {
        stdout.write(line + "\n")
    }

    /// Prints one line to stderr.
    func printError(_ line: String) {
        stderr.write(line + "\n")
    }
}

extension OptionSpec {
    /// `--json`, the same everywhere.
    static let json = OptionSpec(long: "json", help: "Print JSON (each object carries \"version\": 1).")
}
