import NetRulesCore

/// `netrules bench engine|daemon|load|idle`: measured figures, not a test.
enum BenchCommand: Command {
    static let spec = CommandSpec(
        name: "bench",
        abstract: "Measure netrules on this machine.",
        discussion: """
            engine: loads a generated file of --rules rules (YAML parse, validation, compile) and \
            times single fact updates that re-evaluate 1% of them.

            daemon (root): in a network namespace of its own, toggles a veth link --events times and \
            measures how long until a rule's run action starts, through the real daemon, against an \
            'ip monitor link | while read' shell loop on the same changes; prints both and their ratio.

            load (root): 1,000 rules of which 100 fire on one link change (time to the first and the \
            last action start); an observer plugin printing --rate fact updates a second for --seconds \
            seconds (the daemon's CPU, memory, and whether every update arrived); --webhooks rules each \
            sending a webhook 'when: online', fired while offline and delivered to a loopback server \
            once a plugin reports online (time to queue, deliveries a second, memory).

            idle: starts the daemon on rules needing no timer (in a new network namespace as root) and \
            counts its wake-ups, CPU time and memory over --seconds.

            Build with -c release for real figures.
            """,
        arguments: [ArgumentSpec(name: "benchmark", help: "What to measure: engine, daemon, load or idle.")],
        options: [
            OptionSpec(long: "rules", valueName: "count", help: "Rules to generate (engine).", defaultValue: "10000"),
            OptionSpec(
                long: "events", valueName: "count", help: "Link changes to measure (daemon).", defaultValue: "25"),
            OptionSpec(
                long: "rate", valueName: "count", help: "Fact updates a second from the plugin (load).",
                defaultValue: "10000"),
            OptionSpec(
                long: "webhooks", valueName: "count", help: "Webhooks to queue while offline, then deliver (load).",
                defaultValue: "10000"),
            OptionSpec(
                long: "seconds", valueName: "count",
                help:
                    "How long the plugin floods the daemon (load; default 10) or the idle daemon is watched (idle; default 60)."
            ),
            .json,
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let which = arguments.positional("benchmark").first ?? ""
        switch which {
        case "engine": break
        case "daemon":
            guard let events = Int(arguments.value("events") ?? "25"), (2...10_000).contains(events) else {
                throw CommandError.runtime("--events must be a whole number from 2 to 10000")
            }
            let report = try await DaemonBenchmark.run(events: events)
            for line in DaemonBenchmark.render(report, json: arguments.flag("json")) { io.print(line) }
            return ExitCode.success
        case "load":
            guard let rate = Int(arguments.value("rate") ?? "10000"), (1...1_000_000).contains(rate),
                let seconds = Int(arguments.value("seconds") ?? "10"), (1...3600).contains(seconds)
            else {
                throw CommandError.runtime("--rate must be 1 to 1000000 and --seconds 1 to 3600")
            }
            guard let webhooks = Int(arguments.value("webhooks") ?? "10000"), (1...100_000).contains(webhooks) else {
                throw CommandError.runtime("--webhooks must be a whole number from 1 to 100000")
            }
            let many = try await LoadBenchmark.manyRules()
            let flood = try await LoadBenchmark.flood(rate: rate, seconds: seconds)
            let backlog = try await LoadBenchmark.backlog(webhooks: webhooks)
            for line in LoadBenchmark.render(many, flood, backlog, json: arguments.flag("json")) { io.print(line) }
            return ExitCode.success
        case "idle":
            return try await IdleBenchmark.command(arguments, io)
        default:
            throw CommandError.runtime("unknown benchmark '\(which)'; available: engine, daemon, load, idle")
        }
        guard let count = Int(arguments.value("rules") ?? "10000"), count >= 100 else {
            throw CommandError.runtime("--rules must be a whole number of at least 100")
        }
        let r = EngineBenchmark.run(ruleCount: count)
        if arguments.flag("json") {
            func us(_ d: Duration) -> JSONValue { .number(DurationSyntax.seconds(d) * 1e6) }
            io.print(
                JSONValue.object([
                    ("version", .number(1)), ("benchmark", .string("engine")), ("rules", .number(Double(r.ruleCount))),
                    ("file_bytes", .number(Double(r.bytes))),
                    ("load_ms", .number(DurationSyntax.seconds(r.load) * 1e3)),
                    ("yaml_parse_ms", .number(DurationSyntax.seconds(r.yamlParse) * 1e3)),
                    ("rules_per_key", .number(Double(r.rulesPerKey))),
                    ("update_firing_p50_us", us(r.firingUpdate.p50)), ("update_firing_p99_us", us(r.firingUpdate.p99)),
                    ("update_quiet_p50_us", us(r.quietUpdate.p50)), ("update_quiet_p99_us", us(r.quietUpdate.p99)),
                ]).compact)
            return ExitCode.success
        }
        let f = EngineBenchmark.format
        let rows = [
            ["rules loaded", "\(r.ruleCount) (\(r.bytes / 1024) KiB of YAML)"],
            ["load + validate + compile", f(r.load)],
            ["  of which the YAML parse", f(r.yamlParse)],
            [
                "update, \(r.rulesPerKey) rules read it, \(r.firingsPerUpdate) fire",
                "p50 \(f(r.firingUpdate.p50))  p99 \(f(r.firingUpdate.p99))  mean \(f(r.firingUpdate.mean))",
            ],
            [
                "update, \(r.rulesPerKey) rules read it, none fires",
                "p50 \(f(r.quietUpdate.p50))  p99 \(f(r.quietUpdate.p99))  mean \(f(r.quietUpdate.mean))",
            ],
        ]
        for line in Table.render(rows) { io.print(line) }
        return ExitCode.success
    }
}
