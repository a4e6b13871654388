import NetRulesCLI

/// A small command tree shaped like the real `netrules`, so parser and help tests do not depend on the commands
/// other engineers are writing: a root with subcommands, a leaf with every kind of option, and a nested group.
enum SampleCommands {
    static let check = CommandSpec(
        name: "check",
        abstract: "Validate rule files.",
        arguments: [ArgumentSpec(name: "files", help: "The rule files to validate.", isRepeating: true)],
        options: [
            OptionSpec(long: "json", help: "Print one JSON document with every diagnostic."),
            OptionSpec(long: "quiet", short: "q", help: "Print nothing; report only through the exit status."),
        ]
    )

    static let simulate = CommandSpec(
        name: "simulate",
        abstract: "Replay a timeline of facts against rules on a virtual clock.",
        discussion: "Nothing is executed: every firing is printed instead of run.",
        arguments: [ArgumentSpec(name: "rules", help: "The rule file to load.")],
        options: [
            OptionSpec(
                long: "timeline",
                short: "t",
                valueName: "file",
                help: "The timeline to replay.",
                isRequired: true
            ),
            OptionSpec(long: "json", help: "Print one JSON object per firing."),
            OptionSpec(
                long: "format",
                short: "f",
                valueName: "format",
                help: "The layout of each printed firing.",
                defaultValue: "text",
                allowedValues: ["text", "table"]
            ),
            OptionSpec(
                long: "count",
                short: "c",
                valueName: "count",
                help: "How many times to replay the timeline.",
                defaultValue: "1"
            ),
            OptionSpec(long: "verbose", short: "v", help: "Log every fact update to standard error."),
            OptionSpec(
                long: "tag",
                valueName: "tag",
                help: "Only simulate rules carrying this tag.",
                isRepeating: true
            ),
            OptionSpec(
                long: "offset",
                short: "o",
                valueName: "seconds",
                help: "Shift the timeline by this many seconds, which may be negative."
            ),
            OptionSpec(
                long: "max-replay-duration",
                valueName: "duration",
                help: "Stop after this much virtual time.",
                defaultValue: "1h"
            ),
        ]
    )

    static let rules = CommandSpec(
        name: "rules",
        abstract: "Inspect the rules in a file.",
        subcommands: [
            CommandSpec(
                name: "list",
                abstract: "List the rules in a file.",
                arguments: [ArgumentSpec(name: "file", help: "The rule file to read.")]
            ),
            CommandSpec(
                name: "show",
                abstract: "Show one rule, or all of them.",
                arguments: [
                    ArgumentSpec(name: "file", help: "The rule file to read."),
                    ArgumentSpec(name: "id", help: "The rule to show.", isOptional: true),
                ]
            ),
        ]
    )

    static let root = CommandSpec(
        name: "netrules",
        abstract: "React to network changes with declarative rules.",
        discussion: """
            netrules watches links, addresses, Wi-Fi and reachability, and runs the actions of every rule whose \
            conditions start or stop holding.
            """,
        subcommands: [check, simulate, rules]
    )

    static let parser = ArgumentParser(root: root, version: "0.1.0")
}
