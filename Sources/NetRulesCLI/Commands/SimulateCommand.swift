import Foundation
import NetRulesConfig
import NetRulesCore

/// `netrules simulate RULES --timeline FILE [--json]`: the real engine on a virtual clock.
enum SimulateCommand: Command {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Replay a timeline of facts through the rules and print the firings.",
        discussion: """
            Runs the real engine on a virtual clock: no time passes and no action runs. After the \
            last step the clock runs on until no 'for:' hold is pending.
            """,
        arguments: [ArgumentSpec(name: "rules", help: "Rule files or directories of *.yaml files.", isRepeating: true)],
        options: [
            OptionSpec(long: "timeline", short: "t", valueName: "file", help: "The timeline to replay.", isRequired: true),
            OptionSpec(long: "json", help: "Print one JSON object per firing (JSON Lines)."),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let result = try RuleFiles.load(arguments.positional("rules"), environment: io.environment)
        if !result.diagnostics.isEmpty { io.stderr.write(result.renderedDiagnostics()) }
        guard !result.hasErrors else { return ExitCode.invalidRules }

        let timelineFile = arguments.value("timeline")!
        guard let data = FileManager.default.contents(atPath: timelineFile) else {
            throw CommandError.runtime("cannot read '\(timelineFile)': no such file or permission denied")
        }
        let (timeline, diagnostics) = Timeline.parse(Array(data), file: timelineFile)
        let source = SourceText(file: timelineFile, bytes: Array(data))
        if !diagnostics.isEmpty {
            io.stderr.write(diagnostics.map { $0.rendered(source: source) + "\n" }.joined())
        }
        guard let timeline else { return ExitCode.invalidRules }

        let firings = timeline.replay(rules: result.ruleSet.rules)
        if arguments.flag("json") {
            for firing in firings {
                io.print(json(firing).compact)
            }
        } else {
            let rows = firings.map { [DurationSyntax.format($0.at.offset), $0.rule, $0.edge.rawValue, actionList($0)] }
            for line in Table.render(rows) { io.print(line) }
            io.print("\(firings.count) firing\(firings.count == 1 ? "" : "s")")
        }
        return ExitCode.success
    }

    static func json(_ firing: Firing) -> JSONValue {
        .object([
            ("version", .number(1)), ("at", .seconds(firing.at.seconds)), ("rule", .string(firing.rule)),
            ("edge", .string(firing.edge.rawValue)), ("actions", .array(firing.actions.map { .string($0.kind) })),
        ])
    }

    static func actionList(_ firing: Firing) -> String {
        firing.actions.map(\.kind).joined(separator: ", ")
    }
}

/// Aligned columns for human output.
enum Table {
    static func render(_ rows: [[String]], gap: Int = 2) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + gap)
            }.joined()
        }
    }
}
