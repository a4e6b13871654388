import NetRulesCLI
import Testing

/// How positional values bind when optional or repeating arguments precede required ones.
@Suite(.timeLimit(.minutes(1)))
struct PositionalBindingTests {
    static let copy = ArgumentParser(
        root: CommandSpec(
            name: "copy",
            abstract: "",
            arguments: [
                ArgumentSpec(name: "sources", help: "The files to copy.", isRepeating: true),
                ArgumentSpec(name: "destination", help: "Where to copy them."),
            ]
        ),
        version: "1"
    )

    static let greet = ArgumentParser(
        root: CommandSpec(
            name: "greet",
            abstract: "",
            arguments: [
                ArgumentSpec(name: "greeting", help: "", isOptional: true),
                ArgumentSpec(name: "name", help: ""),
            ]
        ),
        version: "1"
    )

    @Test func repeatingLeavesValuesForLaterRequired() throws {
        let parsed = try ArgumentParserParseTests.run(["a", "b", "c"], parser: Self.copy)
        #expect(parsed.positional("sources") == ["a", "b"])
        #expect(parsed.positional("destination") == ["c"])
    }

    @Test func requiredRepeatingTakesOneBeforeLaterRequiredGoesMissing() {
        let expected = UsageError(
            message: "Missing expected argument '<destination>'",
            commandPath: ["copy"],
            helpLine: "<destination>  Where to copy them."
        )
        #expect(throws: expected) {
            try Self.copy.parse(["a"])
        }
    }

    @Test func optionalArgumentYieldsToRequired() throws {
        let one = try ArgumentParserParseTests.run(["Ada"], parser: Self.greet)
        #expect(one.positional("greeting") == [])
        #expect(one.positional("name") == ["Ada"])
        let two = try ArgumentParserParseTests.run(["Hello", "Ada"], parser: Self.greet)
        #expect(two.positional("greeting") == ["Hello"])
        #expect(two.positional("name") == ["Ada"])
    }
}
