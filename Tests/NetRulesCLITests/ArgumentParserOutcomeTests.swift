import NetRulesCLI
import Testing

/// Command lines that ask for help or the version instead of running a command.
@Suite(.timeLimit(.minutes(1)))
struct ArgumentParserOutcomeTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var helpPath: [String]

        var testDescription: String { arguments.isEmpty ? "(no arguments)" : arguments.joined(separator: " ") }
    }

    static let helpRows: [Row] = [
        Row(arguments: [], helpPath: ["netrules"]),
        Row(arguments: ["--help"], helpPath: ["netrules"]),
        Row(arguments: ["-h"], helpPath: ["netrules"]),
        Row(arguments: ["help"], helpPath: ["netrules"]),
        Row(arguments: ["help", "simulate"], helpPath: ["netrules", "simulate"]),
        Row(arguments: ["help", "rules", "show"], helpPath: ["netrules", "rules", "show"]),
        // As in argument-parser, `help` stops at the first word that is not a subcommand.
        Row(arguments: ["help", "bogus"], helpPath: ["netrules"]),
        Row(arguments: ["help", "rules", "bogus"], helpPath: ["netrules", "rules"]),
        Row(arguments: ["simulate", "--help"], helpPath: ["netrules", "simulate"]),
        Row(arguments: ["simulate", "-h"], helpPath: ["netrules", "simulate"]),
        Row(arguments: ["simulate", "-vh"], helpPath: ["netrules", "simulate"]),
        Row(arguments: ["simulate", "r.yaml", "--bogus", "--help"], helpPath: ["netrules", "simulate"]),
        Row(arguments: ["simulate", "--format", "yaml", "-h"], helpPath: ["netrules", "simulate"]),
        Row(arguments: ["--help", "simulate"], helpPath: ["netrules"]),
        Row(arguments: ["bogus", "--help"], helpPath: ["netrules"]),
        Row(arguments: ["rules"], helpPath: ["netrules", "rules"]),
        Row(arguments: ["rules", "show", "--help"], helpPath: ["netrules", "rules", "show"]),
    ]

    @Test(arguments: helpRows)
    func asksForHelp(_ row: Row) throws {
        #expect(try SampleCommands.parser.parse(row.arguments) == .help(commandPath: row.helpPath))
    }

    @Test(arguments: [["--version"], ["--version", "simulate"], ["-h", "--version"]])
    func asksForTheVersionOrHelpFirst(_ arguments: [String]) throws {
        let outcome = try SampleCommands.parser.parse(arguments)
        switch outcome {
        case .version:
            #expect(!arguments.contains("-h"))
        case .help(let path):
            #expect(arguments.contains("-h"))
            #expect(path == ["netrules"])
        case .run:
            Issue.record("Expected the version, got \(outcome)")
        }
        #expect(SampleCommands.parser.versionText == "0.1.0\n")
    }

    @Test func aLeafRootRunsWithoutArguments() throws {
        let parser = ArgumentParser(
            root: CommandSpec(name: "tool", abstract: "A tool.", options: [OptionSpec(long: "dry-run", help: "")]),
            version: "1"
        )
        let parsed = try ArgumentParserParseTests.run([], parser: parser)
        #expect(parsed.commandPath == ["tool"])
        #expect(!parsed.flag("dry-run"))
    }

    @Test func parentOptionsComeBeforeTheSubcommand() throws {
        let parser = ArgumentParser(
            root: CommandSpec(
                name: "tool",
                abstract: "A tool.",
                options: [OptionSpec(long: "config", valueName: "file", help: "The configuration.")],
                subcommands: [CommandSpec(name: "run", abstract: "Run.")]
            ),
            version: "1"
        )
        let parsed = try ArgumentParserParseTests.run(["--config", "c.yaml", "run"], parser: parser)
        #expect(parsed.commandPath == ["tool", "run"])
        #expect(parsed.value("config") == "c.yaml")
        #expect(throws: UsageError(message: "Unknown option '--config'", commandPath: ["tool", "run"])) {
            try parser.parse(["run", "--config", "c.yaml"])
        }
    }
}
