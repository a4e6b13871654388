import NetRulesCLI
import NetRulesCore
package import NetRulesSystem

/// The `netrules-bench` command line: `netrules-bench engine|daemon|load|idle|mqtt`, measured figures of
/// netrules on this machine, not a test. It is a program of its own so that none of it is compiled
/// into `netrules` or shipped in its package.
package enum BenchCommandLine {
    static let root = CommandSpec(
        name: "netrules-bench",
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

            mqtt (root): the daemon with mqtt: against a mosquitto on a unix socket: 200 changes of a \
            published fact, 150 ms apart, timed until a subscriber in this process has the new \
            <prefix>/state (p50, p99); wake-ups over --seconds of an idle daemon connected with keepalive \
            60s; 1,000 QoS 1 mqtt: actions fired while the broker is down, then delivered (deliveries a \
            second, memory).

            The daemon measured is --netrules, by default the netrules executable beside this one. \
            Build with -c release for real figures.
            """,
        arguments: [ArgumentSpec(name: "benchmark", help: "What to measure: engine, daemon, load, idle or mqtt.")],
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
                    "How long the plugin floods the daemon (load; default 10) or the idle daemon is watched (idle, mqtt; default 60)."
            ),
            OptionSpec(
                long: "netrules", valueName: "path",
                help:
                    "The netrules executable whose daemon is measured (daemon, load, idle, mqtt; default: the one beside netrules-bench)."
            ),
            .json,
        ]
    )

    /// Runs the command line `arguments` (without argv[0]) and returns the exit code.
    package static func run(
        arguments: [String], stdout: any TextOutputSink, stderr: any TextOutputSink, environment: [String: String],
        loop: ThreadExecutor
    ) async -> Int32 {
        await ArgumentParser(root: root, version: NetRulesCommandLine.version).run(
            arguments, stdout: stdout, stderr: stderr, environment: environment, loop: loop
        ) { parsed, io in
            try await run(parsed, io)
        }
    }

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let which = arguments.positional("benchmark").first ?? ""
        let netrules = arguments.value("netrules") ?? BenchProcess.netrulesBesideThisExecutable
        switch which {
        case "engine": return try EngineBenchmark.command(arguments, io)
        case "daemon":
            guard let events = Int(arguments.value("events") ?? "25"), (2...10_000).contains(events) else {
                throw CommandError.runtime("--events must be a whole number from 2 to 10000")
            }
            let report = try await DaemonBenchmark.run(
                events: events, netrules: try BenchProcess.checked(netrules), loop: io.loop)
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
            let netrules = try BenchProcess.checked(netrules)
            let many = try await LoadBenchmark.manyRules(netrules: netrules, loop: io.loop)
            let flood = try await LoadBenchmark.flood(rate: rate, seconds: seconds, netrules: netrules, loop: io.loop)
            let backlog = try await LoadBenchmark.backlog(webhooks: webhooks, netrules: netrules, loop: io.loop)
            for line in LoadBenchmark.render(many, flood, backlog, json: arguments.flag("json")) { io.print(line) }
            return ExitCode.success
        case "idle":
            return try await IdleBenchmark.command(arguments, io, netrules: try BenchProcess.checked(netrules))
        case "mqtt":
            return try await MQTTBenchmark.command(arguments, io, netrules: try BenchProcess.checked(netrules))
        default:
            throw CommandError.runtime("unknown benchmark '\(which)'; available: engine, daemon, load, idle, mqtt")
        }
    }
}
