import NetRulesConfig
import NetRulesCore

/// `netrules schema`: the JSON Schema of rule files.
enum SchemaCommand: Command {
    static let spec = CommandSpec(
        name: "schema",
        abstract: "Print the JSON Schema of rule files, for editors' YAML plugins.",
        discussion: """
            Save it and point your editor at it, e.g. for the YAML language server: \
            '# yaml-language-server: $schema=/path/to/netrules.schema.json' at the top of a rule file.
            """
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        io.print(RuleFileSchema.document().pretty)
        return ExitCode.success
    }
}
