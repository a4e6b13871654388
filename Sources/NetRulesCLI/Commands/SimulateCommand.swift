import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
internal import NetRulesSystem

/// `netrules simulate RULES --timeline FILE [--json]`: the real engine on a virtual clock.
enum SimulateCommand: Command {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Replay a timeline of facts through the rules and print the firings.",
        discussion: """
            Runs the real engine on a virtual clock: no time passes and no action runs. Each firing \
            shows its offset and its local time on the virtual clock (Mon 08:55:10), and each action \
            as it would run. After the last step the clock runs on until no 'for:' hold is pending. \
            With --execute KINDS, the actions of those kinds (run, plugin, write, webhook, \
            comma-separated, or all) then run for real, in order, as the daemon would run them, and \
            the others stay previews; {{time}} is then the real time each action runs, never the \
            virtual one, so nothing written or sent claims a time that did not happen. Each action's \
            result is logged to stderr, the last line says what was executed and what only \
            previewed, and the exit code is 1 when any action failed. A timeline with 'expect:' is \
            checked after the replay: each expectation not met is reported with its line, and the \
            exit code is 1 when any is not met.
            """,
        arguments: [
            ArgumentSpec(
                name: "rules", help: "Rule files or directories of *.yaml files.", isRepeating: true, completion: .files
            )
        ],
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
                long: "trace",
                help:
                    "Also show when a 'for:' hold starts or is cancelled, when a firing is dropped and until when, and the environment each run: or plugin action gets."
            ),
            OptionSpec(
                long: "execute", valueName: "kinds",
                help:
                    "Run the actions of these kinds for real after the replay, comma-separated: run, plugin, write, webhook, or all; the others stay previews, as all do without this option."
            ),
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
        var scope: ExecutionScope?
        if let text = arguments.value("execute") {
            guard let parsed = ExecutionScope.parse(text) else {
                throw arguments.invalidValue(
                    "--execute takes the kinds of action to run for real: run, plugin, write, webhook "
                        + "(comma-separated) or all, not '\(text)'")
            }
            scope = parsed
        }
        let result = try RuleFiles.load(arguments.positional("rules"), environment: io.environment)
        let err = io.stderrStyle
        if !result.diagnostics.isEmpty {
            io.stderr.write(result.renderedDiagnostics { err.paint(severity: $0.rawValue) })
        }
        guard !result.hasErrors else { return ExitCode.invalidRules }

        let timelineFile = arguments.value("timeline")!
        guard let bytes = FileContents.readRegularFile(timelineFile) else {
            throw CommandError.noInput("cannot read '\(timelineFile)': no such file or permission denied")
        }
        // The checks against the rules run on what parsed even when something else did not: every
        // problem in one pass, sorted by position, as `check` reports a rule file.
        let (timeline, parseDiagnostics) = Timeline.parsePartially(bytes, file: timelineFile)
        let source = SourceText(file: timelineFile, bytes: bytes)
        let diagnostics =
            (parseDiagnostics
            + unknownKeys(timeline.keys, file: timelineFile, rules: result.ruleSet.rules)
            + unknownRules(timeline.expectations, file: timelineFile, rules: result.ruleSet.rules)).sortedByPosition()
        if !diagnostics.isEmpty {
            io.stderr.write(
                diagnostics.map {
                    $0.rendered(source: source) { err.paint(severity: $0.rawValue) } + "\n"
                }.joined())
        }
        guard !diagnostics.contains(where: { $0.severity == .error }) else { return ExitCode.invalidRules }

        let clock = LocalClock(origin: start, utcOffset: { SystemTimeZone.utcOffset(atUnixTime: $0) })
        let replay = timeline.replay(
            rules: result.ruleSet.rules, places: result.ruleSet.places, clock: clock, tracing: arguments.flag("trace"))
        let firings = replay.firings
        let tracing = arguments.flag("trace")
        // `{{time.utc}}` as the daemon writes it, at the simulated wall clock; the previews show
        // `{{time}}` in the same zone as the clock.
        func wallTime(_ at: Instant) -> String {
            WallClock.rfc3339(WallTime(secondsSince1970: Double(clock.unixTime(at: at))))
        }
        func preview(_ spec: ActionSpec, _ firing: Firing) -> ActionPreview {
            ActionPreview.render(spec, of: firing, wallTime: wallTime(firing.at), utcOffset: clock.utcOffset)
        }
        if arguments.flag("json") {
            for event in SimulationEvent.merge(firings, replay.trace) {
                switch event {
                case .firing(let firing):
                    io.print(
                        json(
                            firing, time: clock.rfc3339(at: firing.at),
                            previews: firing.actions.map { preview($0, firing) }
                        ).compact)
                case .trace(let trace): io.print(json(trace, clock: clock).compact)
                }
            }
        } else {
            let events = SimulationEvent.merge(firings, replay.trace)
            let rows = events.map { event -> [String] in
                switch event {
                case .firing(let f):
                    [
                        DurationSyntax.format(f.at.offset), clock.local(at: f.at).weekdayTimeText, f.rule,
                        f.edge.rawValue, f.actions.map(\.kind).joined(separator: ", "),
                    ]
                case .trace(let t):
                    [
                        DurationSyntax.format(t.at.offset), clock.local(at: t.at).weekdayTimeText, t.rule,
                        t.edge.rawValue, describe(t, clock: clock),
                    ]
                }
            }
            // The edge column in colour on a terminal; the rule names and decisions stay plain.
            let style = io.stdoutStyle
            let lines = Table.render(rows) { _, column, cell in
                column == 3 ? Edge(rawValue: cell).map(style.paint) ?? cell : cell
            }
            for (event, line) in zip(events, lines) {
                io.print(line)
                guard case .firing(let firing) = event else { continue }
                for spec in firing.actions {
                    let preview = preview(spec, firing)
                    io.print("    \(preview.summary)")
                    for detail in preview.details { io.print("      \(detail)") }
                    if tracing {
                        for variable in preview.environment { io.print("      env \(variable)") }
                    }
                }
            }
            io.print("\(firings.count) firing\(firings.count == 1 ? "" : "s")")
        }
        let met = report(timeline, firings, file: timelineFile, source: source, json: arguments.flag("json"), io)
        if let scope {
            let executed = await execute(
                firings, result.ruleSet, scope: scope, stateDirectory: arguments.value("state-dir"),
                json: arguments.flag("json"), io)
            return met ? executed : ExitCode.failure
        }
        return met ? ExitCode.success : ExitCode.failure
    }

    /// A trace line's decision, with the virtual clock's local time where it names one:
    /// `held: fires at 8h55m10s (Mon 08:55:10) if the condition stays`,
    /// `dropped by once_per until Tue 00:00:00 (1d)`.
    static func describe(_ trace: TraceEvent, clock: LocalClock) -> String {
        switch trace.kind {
        case .held(let until):
            "held: fires at \(DurationSyntax.format(until.offset)) (\(clock.local(at: until).weekdayTimeText)) if the condition stays"
        case .cancelled: "cancelled: the condition changed back"
        case .dropped(let reason):
            if let until = trace.until {
                "dropped by \(reason) until \(clock.local(at: until).weekdayTimeText) (\(DurationSyntax.format(until.offset)))"
            } else {
                "dropped by \(reason)"
            }
        }
    }

    static func json(_ trace: TraceEvent, clock: LocalClock) -> JSONValue {
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
            if let until = trace.until {
                members += [("until", .seconds(until.seconds)), ("until_time", .string(clock.rfc3339(at: until)))]
            }
        }
        members.append(("time", .string(clock.rfc3339(at: trace.at))))
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

    static func json(_ firing: Firing, time: String, previews: [ActionPreview]) -> JSONValue {
        .object([
            ("version", .number(1)), ("at", .seconds(firing.at.seconds)), ("rule", .string(firing.rule)),
            ("edge", .string(firing.edge.rawValue)), ("actions", .array(firing.actions.map { .string($0.kind) })),
            ("rendered", .array(previews.map(\.json))), ("time", .string(time)),
        ])
    }
}
