import Testing

@testable import NetRulesCLI

/// Declaration mistakes that would make a command line ambiguous are caught in debug builds.
@Suite(.timeLimit(.minutes(1)))
struct CommandTreeValidationTests {
    @Test func theSampleTreeIsSound() {
        #expect(ArgumentParser.specProblems(in: SampleCommands.root, isRoot: true).isEmpty)
    }

    @Test(arguments: [
        [OptionSpec(long: "json", help: ""), OptionSpec(long: "json", help: "")],
        [OptionSpec(long: "help", help: "")],
        [OptionSpec(long: "version", help: "")],
        [OptionSpec(long: "hint", short: "h", help: "")],
        [OptionSpec(long: "a", short: "x", help: ""), OptionSpec(long: "b", short: "x", help: "")],
        [OptionSpec(long: "json", help: "", allowedValues: ["a"])],
        [OptionSpec(long: "mode", valueName: "mode", help: "", defaultValue: "c", allowedValues: ["a", "b"])],
    ])
    func rejectsAmbiguousOptions(_ options: [OptionSpec]) {
        let root = CommandSpec(name: "tool", abstract: "", options: options)
        #expect(ArgumentParser.specProblems(in: root, isRoot: true).count == 1)
    }

    @Test func versionIsOnlyReservedOnTheRoot() {
        let child = CommandSpec(name: "sub", abstract: "", options: [OptionSpec(long: "version", help: "")])
        let root = CommandSpec(name: "tool", abstract: "", subcommands: [child])
        #expect(ArgumentParser.specProblems(in: root, isRoot: true).isEmpty)
    }

    @Test func rejectsDuplicateArgumentsAndSubcommands() {
        let root = CommandSpec(
            name: "tool",
            abstract: "",
            arguments: [ArgumentSpec(name: "a", help: ""), ArgumentSpec(name: "a", help: "")],
            subcommands: [CommandSpec(name: "x", abstract: ""), CommandSpec(name: "x", abstract: "")]
        )
        #expect(ArgumentParser.specProblems(in: root, isRoot: true).count == 2)
    }
}
