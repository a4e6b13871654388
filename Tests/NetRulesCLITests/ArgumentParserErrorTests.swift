import NetRulesCLI
import Testing

/// Every usage error, with swift-argument-parser's wording.
@Suite(.timeLimit(.minutes(1)))
struct ArgumentParserErrorTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var message: String
        var commandPath = ["netrules", "simulate"]
        var helpLine: String?

        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let rows: [Row] = [
        Row(
            arguments: ["simulate", "r", "-t", "x", "--jsn"],
            message: "Unknown option '--jsn'. Did you mean '--json'?"
        ),
        Row(
            arguments: ["simulate", "r", "-t", "x", "--jsn=1"],
            message: "Unknown option '--jsn'. Did you mean '--json'?"
        ),
        Row(
            arguments: ["simulate", "r", "-t", "x", "--verbos"],
            message: "Unknown option '--verbos'. Did you mean '--verbose'?"
        ),
        Row(arguments: ["simulate", "r", "-t", "x", "--zzzzzz"], message: "Unknown option '--zzzzzz'"),
        Row(arguments: ["simulate", "r", "-t", "x", "--version"], message: "Unknown option '--version'"),
        Row(arguments: ["simulate", "r", "-t", "x", "-x"], message: "Unknown option '-x'"),
        Row(arguments: ["simulate", "r", "-t", "x", "-vx"], message: "Unknown option '-x'"),
        // A misspelt name is reported before the unexpected argument that precedes it.
        Row(
            arguments: ["simulate", "r", "extra", "-t", "x", "--jsn"],
            message: "Unknown option '--jsn'. Did you mean '--json'?"
        ),
        Row(
            arguments: ["simulate", "r", "--timeline"],
            message: "Missing value for '--timeline <file>'",
            helpLine: "--timeline <file>  The timeline to replay."
        ),
        Row(
            arguments: ["simulate", "r", "-t"],
            message: "Missing value for '-t <file>'",
            helpLine: "-t <file>  The timeline to replay."
        ),
        Row(
            arguments: ["simulate", "r", "-t", "--json"],
            message: "Missing value for '-t <file>'",
            helpLine: "-t <file>  The timeline to replay."
        ),
        Row(
            arguments: ["simulate", "r", "-t", "-v"],
            message: "Missing value for '-t <file>'",
            helpLine: "-t <file>  The timeline to replay."
        ),
        Row(
            arguments: ["simulate", "r", "-t", "--", "x"],
            message: "Missing value for '-t <file>'",
            helpLine: "-t <file>  The timeline to replay."
        ),
        Row(
            arguments: ["simulate", "-t", "x"],
            message: "Missing expected argument '<rules>'",
            helpLine: "<rules>  The rule file to load."
        ),
        Row(
            arguments: ["simulate", "r"],
            message: "Missing expected argument '--timeline <file>'",
            helpLine: "--timeline <file>  The timeline to replay."
        ),
        Row(arguments: ["simulate", "r", "-t", "x", "foo"], message: "Unexpected argument 'foo'"),
        Row(arguments: ["simulate", "r", "-t", "x", "foo", "bar"], message: "2 unexpected arguments: 'foo', 'bar'"),
        Row(
            arguments: ["simulate", "r", "-t", "x", "--format", "yaml"],
            message: "The value 'yaml' is invalid for '--format <format>'. Please provide one of 'text' and 'table'.",
            helpLine: "--format <format>  The layout of each printed firing."
        ),
        Row(
            arguments: ["simulate", "r", "-t", "x", "-fyaml"],
            message: "The value 'yaml' is invalid for '-f <format>'. Please provide one of 'text' and 'table'.",
            helpLine: "-f <format>  The layout of each printed firing."
        ),
        Row(
            arguments: ["simulate", "r", "-t", "x", "--json=yes"],
            message: "The option '--json' does not take any value, but 'yes' was specified."
        ),
        Row(
            arguments: ["check"],
            message: "Missing expected argument '<files> ...'",
            commandPath: ["netrules", "check"],
            helpLine: "<files>  The rule files to validate."
        ),
        Row(
            arguments: ["rules", "show", "f", "id", "extra"],
            message: "Unexpected argument 'extra'",
            commandPath: ["netrules", "rules", "show"]
        ),
        Row(
            arguments: ["chek"],
            message: "Unknown subcommand 'chek'. Did you mean 'check'?",
            commandPath: ["netrules"]
        ),
        Row(arguments: ["frobnicate", "check"], message: "Unknown subcommand 'frobnicate'", commandPath: ["netrules"]),
        Row(
            arguments: ["rules", "lst", "f"],
            message: "Unknown subcommand 'lst'. Did you mean 'list'?",
            commandPath: ["netrules", "rules"]
        ),
        Row(arguments: ["--", "check"], message: "Unexpected argument 'check'", commandPath: ["netrules"]),
        Row(arguments: ["--jsn"], message: "Unknown option '--jsn'", commandPath: ["netrules"]),
        Row(arguments: ["--hlp"], message: "Unknown option '--hlp'. Did you mean '--help'?", commandPath: ["netrules"]),
        Row(
            arguments: ["--verison"],
            message: "Unknown option '--verison'. Did you mean '--version'?",
            commandPath: ["netrules"]
        ),
    ]

    @Test(arguments: rows)
    func rejects(_ row: Row) {
        let expected = UsageError(message: row.message, commandPath: row.commandPath, helpLine: row.helpLine)
        #expect(throws: expected) {
            try SampleCommands.parser.parse(row.arguments)
        }
    }

    @Test(arguments: [
        (["one"], "Please provide one of 'one'."),
        (["a", "b", "c"], "Please provide one of 'a', 'b' or 'c'."),
        (
            ["1", "2", "3", "4", "5", "6"],
            "Please provide one of the following:\n  - 1\n  - 2\n  - 3\n  - 4\n  - 5\n  - 6"
        ),
    ])
    func listsAllowedValuesLikeArgumentParser(allowed: [String], sentence: String) {
        let parser = ArgumentParser(
            root: CommandSpec(
                name: "tool",
                abstract: "",
                options: [OptionSpec(long: "mode", valueName: "mode", help: "", allowedValues: allowed)]
            ),
            version: "1"
        )
        let expected = UsageError(
            message: "The value 'x' is invalid for '--mode <mode>'. \(sentence)",
            commandPath: ["tool"]
        )
        #expect(throws: expected) {
            try parser.parse(["--mode", "x"])
        }
    }

    @Test func errorTextHasArgumentParserShape() {
        let parser = SampleCommands.parser
        var error = UsageError(
            message: "Unknown option '--jsn'. Did you mean '--json'?",
            commandPath: ["netrules", "simulate"]
        )
        #expect(
            parser.errorText(error) == """
                Error: Unknown option '--jsn'. Did you mean '--json'?
                Usage: netrules simulate <rules> --timeline <file> [--json] [--format <format>] [--count <count>] \
                [--verbose] [--tag <tag> ...] [--offset <seconds>] [--max-replay-duration <duration>]
                  See 'netrules simulate --help' for more information.

                """
        )
        error = UsageError(
            message: "Missing expected argument '<files> ...'",
            commandPath: ["netrules", "check"],
            helpLine: "<files>  The rule files to validate."
        )
        #expect(
            parser.errorText(error) == """
                Error: Missing expected argument '<files> ...'
                Help:  <files>  The rule files to validate.
                Usage: netrules check <files> ... [--json] [--quiet]
                  See 'netrules check --help' for more information.

                """
        )
        #expect(UsageError.exitCode == 64)
    }
}
