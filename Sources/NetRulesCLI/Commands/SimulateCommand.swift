import FoundationEssentials
import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
internal import NetRulesSystem

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
            when any action failed. A timeline with 'expect:' is checked after the replay: each \
            expectation not met is reported with its line, and the exit code is 1 when any is not met.
            """,
        arguments: [ArgumentSpec(name: "rules", help: "Rule files or directories of *.yaml files.", isRepeating: true)],
        options: [
            OptionSpec(
                long: "timeline", short: "t", valueName: "file", help: "The timeline to replay.", isRequired: true),
            OptionSpec(long: "json", help: "Print one JSON object per firing (JSON Lines)."),
            OptionSpec(
                long: "start", valueName: "time",
                help:
                    "The wall-clock time of the timeline's 0s, RFC 3339 (default: Monday 2026-12-07T00:00 in the local time zone)."
            ),
            OptionSpec(
                long: "trace", help: "Also show when a 'for:' hold starts or is cancelled and when a firing is dropped."
            ),
            OptionSpec(long: "execute", help: "Run the firings' actions for real."),
            OptionSpec(
                long: "state-dir", valueName: "dir",
                help: "With --execute: where the webhook outbox lives (default: a temporary directory)."),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        // A bad option value is a usage error whatever the files hold: checked before reading them.
        let start: Int64
        if let text = arguments.value("start") {
            guard let parsed = SimulationStart.parse(text) else {
                throw arguments.invalidValue(
                    "--start must be an RFC 3339 time such as 2026-12-07T08:55:00+01:00, not '\(text)'")
            }
            start = parsed
        } else {
            start = SimulationStart.defaultStart()
        }
        let result = try RuleFiles.load(arguments.positional("rules"), environment: io.environment)
        if !result.diagnostics.isEmpty { io.stderr.write(result.renderedDiagnostics()) }
        guard !result.hasErrors else { return ExitCode.invalidRules }

        let timelineFile = arguments.value("timeline")!
        guard let data = FileManager.default.contents(atPath: timelineFile) else {
            throw CommandError.noInput("cannot read '\(timelineFile)': no such file or permission denied")
        }
        var (timeline, diagnostics) = Timeline.parse(Array(data), file: timelineFile)
        let source = SourceText(file: timelineFile, bytes: Array(data))
        if let named = timeline?.keys {
            let typos =
                unknownKeys(named, file: timelineFile, rules: result.ruleSet.rules)
                + unknownRules(timeline?.expectations ?? [], file: timelineFile, rules: result.ruleSet.rules)
            diagnostics = (diagnostics + typos).sortedByPosition()
            if !typos.isEmpty { timeline = nil }
        }
        if !diagnostics.isEmpty {
            io.stderr.write(diagnostics.map { $0.rendered(source: source) + "\n" }.joined())
        }
        guard let timeline else { return ExitCode.invalidRules }

        let clock = LocalClock(origin: start, utcOffset: { SystemTimeZone.utcOffset(atUnixTime: $0) })
        let replay = timeline.replay(
            rules: result.ruleSet.rules, places: result.ruleSet.places, clock: clock, tracing: arguments.flag("trace"))
        let firings = replay.firings
        // `{{time}}` as the daemon writes it (UTC), at the simulated wall clock.
        func wallTime(_ at: Instant) -> String {
            WallClock.rfc3339(Date(timeIntervalSince1970: Double(clock.unixTime(at: at))))
        }
        if arguments.flag("json") {
            for event in SimulationEvent.merge(firings, replay.trace) {
                switch event {
                case .firing(let firing): io.print(json(firing, wallTime: wallTime(firing.at)).compact)
                case .trace(let trace): io.print(json(trace).compact)
                }
            }
        } else {
            let events = SimulationEvent.merge(firings, replay.trace)
            let rows = events.map { event -> [String] in
                switch event {
                case .firing(let f):
                    [
                        DurationSyntax.format(f.at.offset), f.rule, f.edge.rawValue,
                        f.actions.map(\.kind).joined(separator: ", "),
                    ]
                case .trace(let t): [DurationSyntax.format(t.at.offset), t.rule, t.edge.rawValue, describe(t.kind)]
                }
            }
            for (event, line) in zip(events, Table.render(rows)) {
                io.print(line)
                guard case .firing(let firing) = event else { continue }
                for spec in firing.actions {
                    let preview = ActionPreview.render(spec, of: firing, wallTime: wallTime(firing.at))
                    io.print("    \(preview.summary)")
                    for detail in preview.details { io.print("      \(detail)") }
                }
            }
            io.print("\(firings.count) firing\(firings.count == 1 ? "" : "s")")
        }
        let met = report(timeline, firings, file: timelineFile, source: source, json: arguments.flag("json"), io)
        if arguments.flag("execute") {
            let executed = await execute(
                firings, result.ruleSet, stateDirectory: arguments.value("state-dir"), wallTime: wallTime, io)
            return met ? executed : ExitCode.failure
        }
        return met ? ExitCode.success : ExitCode.failure
    }

    static func describe(_ kind: TraceEvent.Kind) -> String {
        switch kind {
        case .held(let until): "held: fires at \(DurationSyntax.format(until.offset)) if the condition stays"
        case .cancelled: "cancelled: the condition changed back"
        case .dropped(let reason): "dropped by \(reason)"
        }
    }

    static func json(_ trace: TraceEvent) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", .number(1)), ("at", .seconds(trace.at.seconds)), ("rule", .string(trace.rule)),
            ("edge", .string(trace.edge.rawValue)),
        ]
        switch trace.kind {
        case .held(let until):
            members += [("event", .string("held")), ("until", .seconds(until.seconds))]
        case .cancelled:
            members.append(("event", .string("cancelled")))
        case .dropped(let reason):
            members += [("event", .string("dropped")), ("reason", .string(reason))]
        }
        return .object(members)
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
    static func execute(
        _ firings: [Firing], _ ruleSet: RuleSet, stateDirectory: String?, wallTime: (Instant) -> String,
        _ io: CommandIO
    ) async -> Int32 {
        let fm = FileManager.default
        let directory =
            stateDirectory ?? fm.temporaryDirectory.appendingPathComponent("netrules-simulate-\(UUID())").path
        defer { if stateDirectory == nil { try? fm.removeItem(atPath: directory) } }
        let err = io.stderr
        let runner = ActionRunner(
            stateDirectory: directory, environment: io.environment, pluginDirectories: ruleSet.pluginDirectories,
            logger: Logger(label: "netrules.simulate", level: .trace, sink: LineLogSink { err.write($0) }))
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
        for firing in firings {
            await runner.connectivityChanged(to: firing.facts[.connectivity].value?.plainText)
            await runner.submit(firing, wallTime: wallTime(firing.at))
        }
        await runner.drain()
        let failed = expected == 0 ? 0 : await failures.value
        let parked = await runner.parkedDeliveries
        if !parked.isEmpty {
            io.printError("\(parked.count) webhook deliver\(parked.count == 1 ? "y is" : "ies are") held until online")
        }
        return failed == 0 ? ExitCode.success : ExitCode.failure
    }

    static func json(_ firing: Firing, wallTime: String) -> JSONValue {
        .object([
            ("version", .number(1)), ("at", .seconds(firing.at.seconds)), ("rule", .string(firing.rule)),
            ("edge", .string(firing.edge.rawValue)), ("actions", .array(firing.actions.map { .string($0.kind) })),
            (
                "rendered",
                .array(firing.actions.map { ActionPreview.render($0, of: firing, wallTime: wallTime).json })
            ),
        ])
    }
}

/// Aligned columns for human output.
package enum Table {
    package static func render(_ rows: [[String]], gap: Int = 2) -> [String] {
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
