import NetRulesCLI
import Testing

/// The usage line: arguments then options in declaration order, brackets, ` ...`, `<subcommand>`, abbreviation.
@Suite(.timeLimit(.minutes(1)))
struct UsageLineTests {
    @Test(arguments: [
        (["netrules"], "netrules <subcommand>"),
        (["netrules", "check"], "netrules check <files> ... [--json] [--quiet]"),
        (["netrules", "rules"], "netrules rules <subcommand>"),
        (["netrules", "rules", "show"], "netrules rules show <file> [<id>]"),
        (["netrules", "rules", "bogus"], "netrules rules <subcommand>"),
    ])
    func sampleCommands(path: [String], usage: String) {
        #expect(SampleCommands.parser.usageLine(for: path) == usage)
    }

    @Test func optionalAndRepeatingShapes() {
        let parser = ArgumentParser(
            root: CommandSpec(
                name: "tool",
                abstract: "",
                arguments: [ArgumentSpec(name: "inputs", help: "", isOptional: true, isRepeating: true)],
                options: [
                    OptionSpec(long: "tag", valueName: "tag", help: "", isRepeating: true, isRequired: true),
                    OptionSpec(long: "verbose", short: "v", help: "", isRepeating: true),
                ]
            ),
            version: "1"
        )
        #expect(parser.usageLine(for: ["tool"]) == "tool [<inputs> ...] --tag <tag> ... [--verbose ...]")
    }

    @Test func moreThanTwelveElementsAreAbbreviated() {
        let optional = (1...12).map { OptionSpec(long: "option-\($0)", help: "") }
        let withRequired = CommandSpec(
            name: "tool",
            abstract: "",
            arguments: [ArgumentSpec(name: "input", help: "")],
            options: optional + [OptionSpec(long: "out", valueName: "file", help: "", isRequired: true)]
        )
        #expect(
            ArgumentParser(root: withRequired, version: "1").usageLine(for: ["tool"])
                == "tool [<options>] <input> --out <file>"
        )
        let allOptional = CommandSpec(name: "tool", abstract: "", options: optional + [OptionSpec(long: "x", help: "")])
        #expect(ArgumentParser(root: allOptional, version: "1").usageLine(for: ["tool"]) == "tool <options>")
    }
}
