import FoundationEssentials
import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemon

/// `netrules simulate RULES --timeline FILE [--json]`: the real engine on a virtual clock.
enum SimulateCommand: Command {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Replay a timeline of facts through the rules and print the firings.",
        discussion: """
            Runs the real engine on a virtual clock: no time passes and no action runs. After the \
            last step the clock runs on until no 'for:' hold is pending. With --execute, the firings' \
            actions then run for real, in order, as the daemon would run them ({{time}} is now plus \
            the firing's offset); each action's result is logged to stderr, and the exit code is 1 \
            when any action failed.
            """,
        arguments: [ArgumentSpec(name: "rules", help: "Rule files or directories of *.yaml files.", isRepeating: true)],
        options: [
            OptionSpec(
                long: "timeline", short: "t", valueName: "file", help: "The timeline to replay.", isRequired: true),
            OptionSpec(long: "json", help: "Print one JSON object per firing (JSON Lines)."),
            OptionSpec(long: "execute", help: "Run the firings' actions for real."),
            OptionSpec(
                long: "state-dir", valueName: "dir",
                help: "With --execute: where the webhook outbox lives (default: a temporary directory)."),
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
        var (timeline, diagnostics) = Timeline.parse(Array(data), file: timelineFile)
        let source = SourceText(file: timelineFile, bytes: Array(data))
        if let named = timeline?.keys {
            let typos = unknownKeys(named, file: timelineFile, rules: result.ruleSet.rules)
            diagnostics = (diagnostics + typos).sortedByPosition()
            if !typos.isEmpty { timeline = nil }
        }
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
        if arguments.flag("execute") {
            return await execute(firings, result.ruleSet, stateDirectory: arguments.value("state-dir"), io)
        }
        return ExitCode.success
    }

    /// Timeline keys that are neither built-in facts nor read by any loaded rule: a typo
    /// (`sssid:`) would otherwise replay silently and report "0 firings", which reads like a pass.
    static func unknownKeys(
        _ named: [(key: FactKey, mark: SourceMark, path: String)], file: String, rules: [Rule]
    ) -> [Diagnostic] {
        let read = Set(rules.flatMap(\.condition.readKeys))
        let candidates = FactKey.vocabulary.map(\.rawValue) + read.map(\.rawValue)
        return named.filter { !$0.key.isBuiltIn && !read.contains($0.key) }.map { entry in
            Diagnostic(
                "'\(entry.key)' is not a fact netrules knows, and no rule reads it", file: file, mark: entry.mark,
                keyPath: entry.path,
                hint: EditDistance.closest(to: entry.key.rawValue, among: candidates).map { "did you mean '\($0)'?" }
                    ?? "built-in facts: \(FactKey.vocabulary.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// Runs the firings' actions through the real action runner and waits for every result.
    static func execute(_ firings: [Firing], _ ruleSet: RuleSet, stateDirectory: String?, _ io: CommandIO) async
        -> Int32
    {
        let fm = FileManager.default
        let directory =
            stateDirectory ?? fm.temporaryDirectory.appendingPathComponent("netrules-simulate-\(UUID())").path
        defer { if stateDirectory == nil { try? fm.removeItem(atPath: directory) } }
        let err = io.stderr
        let runner = ActionRunner(
            stateDirectory: directory, environment: io.environment, pluginDirectories: ruleSet.pluginDirectories,
            logger: { err.write($0 + "\n") })
        let expected = firings.reduce(0) { $0 + $1.actions.count }
        let failures = Task {
            var seen = 0
            var failed = 0
            for await result in runner.results {
                seen += 1
                if case .failed = result.outcome { failed += 1 }
                if seen == expected { break }
            }
            return failed
        }
        let start = Date()
        for firing in firings {
            await runner.connectivityChanged(to: firing.facts[.connectivity].value?.plainText)
            let wall = WallClock.rfc3339(start.addingTimeInterval(firing.at.seconds))
            await runner.submit(firing, wallTime: wall)
        }
        await runner.drain()
        let failed = expected == 0 ? 0 : await failures.value
        let parked = await runner.parkedDeliveries
        if !parked.isEmpty {
            io.printError("\(parked.count) webhook deliver\(parked.count == 1 ? "y is" : "ies are") held until online")
        }
        return failed == 0 ? ExitCode.success : ExitCode.failure
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
