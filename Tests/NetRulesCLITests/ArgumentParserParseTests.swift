import NetRulesCLI
import Testing

/// Command lines that parse, one row per rule: spellings of options, short groups, `--`, and positional binding.
@Suite(.timeLimit(.minutes(1)))
struct ArgumentParserParseTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var commandPath: [String]
        /// Every flag of the command not listed here must read as unset.
        var flags: Set<String> = []
        var values: [String: [String]] = [:]
        var positionals: [String: [String]] = [:]

        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let simulatePath = ["netrules", "simulate"]

    static let rows: [Row] = [
        Row(
            arguments: ["simulate", "r.yaml", "--timeline", "t.yaml"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "--timeline=t.yaml", "--json"],
            commandPath: simulatePath,
            flags: ["json"],
            values: ["timeline": ["t.yaml"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "-t", "t.yaml", "r.yaml"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "-tt.yaml"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "-t", "t.yaml", "-vc3"],
            commandPath: simulatePath,
            flags: ["verbose"],
            values: ["timeline": ["t.yaml"], "count": ["3"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "-vc", "3", "-t", "t.yaml"],
            commandPath: simulatePath,
            flags: ["verbose"],
            values: ["timeline": ["t.yaml"], "count": ["3"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "-t", "t.yaml", "-o", "-1"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"], "offset": ["-1"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "-t", "t.yaml", "--offset", "-1.5"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"], "offset": ["-1.5"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "-t", "t.yaml", "--", "-r.yaml"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"]],
            positionals: ["rules": ["-r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "-t", "t.yaml", "--", "--json"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"]],
            positionals: ["rules": ["--json"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "-t", "t.yaml", "--tag", "home", "--tag=office"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"], "tag": ["home", "office"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "-t", "a.yaml", "--timeline", "b.yaml"],
            commandPath: simulatePath,
            values: ["timeline": ["a.yaml", "b.yaml"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "-t", "t.yaml", "--format", "table", "-ftext"],
            commandPath: simulatePath,
            values: ["timeline": ["t.yaml"], "format": ["table", "text"]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["simulate", "r.yaml", "--timeline="],
            commandPath: simulatePath,
            values: ["timeline": [""]],
            positionals: ["rules": ["r.yaml"]]
        ),
        Row(
            arguments: ["check", "a.yaml", "b.yaml", "-q"],
            commandPath: ["netrules", "check"],
            flags: ["quiet"],
            positionals: ["files": ["a.yaml", "b.yaml"]]
        ),
        Row(
            arguments: ["check", "a.yaml", "--json", "b.yaml", "-"],
            commandPath: ["netrules", "check"],
            flags: ["json"],
            positionals: ["files": ["a.yaml", "b.yaml", "-"]]
        ),
        Row(
            arguments: ["check", "--", "--help", "-q"],
            commandPath: ["netrules", "check"],
            positionals: ["files": ["--help", "-q"]]
        ),
        Row(
            arguments: ["rules", "show", "f.yaml"],
            commandPath: ["netrules", "rules", "show"],
            positionals: ["file": ["f.yaml"], "id": []]
        ),
        Row(
            arguments: ["rules", "show", "f.yaml", "office-vpn"],
            commandPath: ["netrules", "rules", "show"],
            positionals: ["file": ["f.yaml"], "id": ["office-vpn"]]
        ),
    ]

    @Test(arguments: rows)
    func parses(_ row: Row) throws {
        let outcome = try SampleCommands.parser.parse(row.arguments)
        guard case .run(let parsed) = outcome else {
            Issue.record("Expected a command to run, got \(outcome)")
            return
        }
        #expect(parsed.commandPath == row.commandPath)
        let command = try #require(Self.command(at: row.commandPath))
        for option in command.options {
            if option.takesValue {
                #expect(parsed.flag(option.long) == (row.values[option.long] != nil), "--\(option.long)")
                if let expected = row.values[option.long] {
                    #expect(parsed.values(option.long) == expected, "--\(option.long)")
                }
            } else {
                #expect(parsed.flag(option.long) == row.flags.contains(option.long), "--\(option.long)")
            }
        }
        for (name, expected) in row.positionals {
            #expect(parsed.positional(name) == expected, "<\(name)>")
        }
    }

    private static func command(at path: [String]) -> CommandSpec? {
        var command: CommandSpec? = SampleCommands.root
        for name in path.dropFirst() {
            command = command?.subcommand(named: name)
        }
        return command
    }

    @Test func valueIsTheLastGivenOrTheDefault() throws {
        let given = try Self.run(["simulate", "r", "-t", "a", "--count", "2", "-c", "5"])
        #expect(given.value("count") == "5")
        #expect(given.value("format") == "text")
        #expect(given.values("format") == ["text"])
        #expect(given.value("offset") == nil)
        #expect(given.values("offset") == [])
    }

    @Test func repeatedFlagsCount() throws {
        let parsed = try Self.run(["simulate", "r", "-t", "a", "-vv", "--verbose"])
        #expect(parsed.count("verbose") == 3)
        #expect(parsed.count("json") == 0)
    }

    static func run(_ arguments: [String], parser: ArgumentParser = SampleCommands.parser) throws -> ParsedArguments {
        guard case .run(let parsed) = try parser.parse(arguments) else {
            throw UsageError(message: "not a run outcome", commandPath: [])
        }
        return parsed
    }
}
