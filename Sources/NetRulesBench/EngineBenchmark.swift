import NetRulesCLI
import NetRulesConfig
import NetRulesCore

/// `netrules-bench engine`: load-and-compile time of a generated rule file, and time per fact update.
enum EngineBenchmark {
    struct Report {
        var ruleCount: Int
        var bytes: Int
        var load: Duration
        /// The YAML parse alone (libyaml events → tree), measured separately.
        var yamlParse: Duration
        var firingUpdate: Percentiles
        var quietUpdate: Percentiles
        var firingsPerUpdate: Int
        var rulesPerKey: Int
    }

    struct Percentiles {
        var p50: Duration
        var p99: Duration
        var mean: Duration
    }

    /// A rule file where rule i reads `ssid` and `hosts.host-(i % 100)`: each host key is read by
    /// `ruleCount / 100` rules.
    static func generate(ruleCount: Int) -> String {
        var text = "version: 1\nrules:\n"
        text.reserveCapacity(ruleCount * 150)
        for i in 0..<ruleCount {
            text += """
                  - name: rule-\(i)
                    when:
                      all:
                        - ssid: Net-\(i % 50)
                        - unreachable: host-\(i % 100)
                    on: [enter, exit]
                    do:
                      - run: echo {{rule}} {{ssid}}

                """
        }
        return text
    }

    static func run(ruleCount: Int = 10_000, updates: Int = 20_000) -> Report {
        let clock = ContinuousClock()
        let text = generate(ruleCount: ruleCount)
        let bytes = Array(text.utf8)

        let parseStart = clock.now
        _ = YAMLDocument.parse(bytes, file: "bench.yaml")
        let yamlParse = clock.now - parseStart

        // The best of three loads: one figure per process is at the mercy of whatever else runs.
        var load = Duration.seconds(3600)
        var result = LoadResult(ruleSet: RuleSet(), diagnostics: [], sources: [:])
        var engine = Engine(rules: [])
        for _ in 0..<3 {
            let start = clock.now
            result = RuleLoader().load([RuleSource(file: "bench.yaml", bytes: bytes)])
            engine = Engine(rules: result.ruleSet.rules)
            load = min(load, clock.now - start)
        }
        precondition(!result.hasErrors && result.ruleSet.rules.count == ruleCount, "generated rules must load")

        // Every host reachable and the SSID known, so each toggle below is a real edge.
        var initial = FactUpdate()
        for h in 0..<100 { initial[.host("host-\(h)")] = .value("reachable") }
        initial[.ssid] = .value("Net-7")
        _ = engine.apply(initial, at: .zero)

        func measure(_ key: FactKey) -> (Percentiles, Int) {
            var samples: [Duration] = []
            samples.reserveCapacity(updates)
            var fired = 0
            for n in 0..<updates {
                let update = FactUpdate([key: .value(n % 2 == 0 ? "unreachable" : "reachable")])
                let t0 = clock.now
                let firings = engine.apply(update, at: Instant(.milliseconds(Int64(n))))
                samples.append(clock.now - t0)
                fired = max(fired, firings.count)
            }
            samples.sort()
            let total = samples.reduce(Duration.zero, +)
            return (
                Percentiles(
                    p50: samples[samples.count / 2], p99: samples[samples.count * 99 / 100], mean: total / updates),
                fired
            )
        }
        // host-7's 100 rules all want ssid Net-7: every update fires 100 edges.
        let (firing, firings) = measure(.host("host-7"))
        // host-8's 100 rules want ssid Net-8: re-evaluated, none fires.
        let (quiet, _) = measure(.host("host-8"))
        return Report(
            ruleCount: ruleCount, bytes: bytes.count, load: load, yamlParse: yamlParse, firingUpdate: firing,
            quietUpdate: quiet,
            firingsPerUpdate: firings, rulesPerKey: ruleCount / 100)
    }

    static func format(_ d: Duration) -> String {
        let us = DurationSyntax.seconds(d) * 1e6
        if us >= 1000 { return "\(Double(Int(us / 10)) / 100) ms" }
        return "\(Double(Int(us * 10)) / 10) µs"
    }

    /// `netrules-bench engine [--rules N] [--json]`.
    static func command(_ arguments: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard let count = Int(arguments.value("rules") ?? "10000"), count >= 100 else {
            throw CommandError.runtime("--rules must be a whole number of at least 100")
        }
        let r = run(ruleCount: count)
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
        let f = format
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
