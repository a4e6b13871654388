import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
internal import NetRulesSystem

/// `netrules check FILE…`: validate rule files.
enum CheckCommand: Command {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Validate rule files.",
        discussion: """
            Reports every problem in every file as FILE:LINE:COLUMN: error: MESSAGE, with the source \
            line and a caret, sorted by position. Exits 0 when the files are valid (warnings allowed), \
            65 when any error was found.
            """,
        arguments: [
            ArgumentSpec(
                name: "rules", help: "Rule files or directories of *.yaml files.", isRepeating: true, completion: .files
            )
        ],
        options: [.json]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let paths = arguments.positional("rules")
        let result = try RuleFiles.load(paths, environment: io.environment)
        let count = result.ruleSet.rules.count
        // As root, the daemon refuses files other users can write: say so here first.
        let distrusted = RuleFiles.trustProblems(result, files: try RuleFiles.expand(paths)) {
            FileTrust.problem(withFile: $0, kind: $1)
        }
        let failed = result.hasErrors || !distrusted.isEmpty
        if arguments.flag("json") {
            let diagnostics = result.diagnostics.map(ControlDocuments.diagnostic)
            let document: JSONValue = .object([
                ("version", .number(1)), ("ok", .bool(!failed)), ("rules", .number(Double(count))),
                ("diagnostics", .array(diagnostics)), ("refused", .array(distrusted.map(JSONValue.string))),
                ("omitted", .number(Double(result.omitted.values.reduce(0, +)))),
            ])
            io.print(document.pretty)
            return failed ? ExitCode.invalidRules : ExitCode.success
        }
        let err = io.stderrStyle
        if !result.diagnostics.isEmpty {
            io.stderr.write(result.renderedDiagnostics { err.paint(severity: $0.rawValue) })
        }
        for problem in distrusted { io.printError(err.paint(severity: "error") + ": " + TerminalText.escaped(problem)) }
        if failed {
            let errors = result.errorCount + distrusted.count
            io.printError("\(errors) error\(errors == 1 ? "" : "s") found")
            return ExitCode.invalidRules
        }
        io.print(io.stdoutStyle.paint(severity: "ok") + ": \(count) rule\(count == 1 ? "" : "s")")
        return ExitCode.success
    }
}
