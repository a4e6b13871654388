import NetRulesCLI
import NetRulesCore
import NetRulesLinux
internal import NetRulesSystem

/// `netrules-bench daemon`: how long after a link goes up or down the rule's `run` action starts,
/// through the real daemon in a network namespace, against the classic shell loop
/// `ip monitor link | while read …` measured on the same link changes.
///
/// Both sides start the same program, `date +%s%N`, which prints CLOCK_REALTIME in nanoseconds:
/// the daemon's rule runs it directly (its output lands in the history), the loop appends it to a
/// file. This process toggles the link itself with one RTM_NEWLINK request (no `ip` start-up in the
/// figure) and reads CLOCK_REALTIME right before sending it; a latency is the first stamp after
/// that instant minus it. The next change waits until both sides stamped (at most 2 s).
enum DaemonBenchmark {
    struct Report {
        var events: Int
        var daemon: [Double]
        var loop: [Double]

        /// p50 of the daemon over p50 of the loop.
        var ratio: Double { Self.percentile(daemon, 0.5) / Self.percentile(loop, 0.5) }

        static func percentile(_ values: [Double], _ p: Double) -> Double {
            guard !values.isEmpty else { return .nan }
            let sorted = values.sorted()
            let position = Double(sorted.count - 1) * p
            let low = Int(position)
            let high = min(low + 1, sorted.count - 1)
            return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
        }
    }

    static let rules = """
        version: 1
        rules:
          - name: bench-link
            when: { interface: { name: nrb0, state: up } }
            on: [enter, exit]
            do:
              - run: date +%s%N
        """

    static func run(events: Int, netrules: String, loop: ThreadExecutor) async throws -> Report {
        let namespace = try await BenchTestbed(netrules: netrules, loop: loop)
        do {
            let report = try await measure(in: namespace, events: events)
            await namespace.tearDown()
            return report
        } catch {
            await namespace.tearDown()
            throw error
        }
    }

    private static func measure(in namespace: BenchTestbed, events: Int) async throws -> Report {
        try namespace.addVethPair("nrb0", "nrb1")
        let rulesFile = namespace.directory + "/bench.yaml"
        try LoadBenchmark.write(rules + "\n", to: rulesFile)
        _ = try await namespace.startDaemon(rules: rulesFile)
        let loopFile = namespace.directory + "/loop.stamps"
        // `ip` prints "N: nrb0@nrb1: <…>" for our link; nrb1's lines say "nrb1@nrb0".
        let loop = """
            ip monitor link | while read -r line; do
              case "$line" in *": nrb0@"*) date +%s%N >> '\(loopFile)' ;; esac
            done
            """
        namespace.start(["sh", "-c", loop], log: namespace.directory + "/loop.log")
        // Let `ip monitor` subscribe and the daemon settle before the first change; not measured.
        try await Task.sleep(for: .milliseconds(800))

        let historyFile = namespace.directory + "/state/history.jsonl"
        var starts: [Int64] = []
        var up = false  // nrb0 starts down: the first change brings it up
        let clock = ContinuousClock()
        for _ in 0..<events {
            up.toggle()
            let sent = try await LinkSwitch.set("nrb0", up: up, inNamespace: namespace.path)
            starts.append(sent)
            let deadline = clock.now + .seconds(2)
            while clock.now < deadline {
                if stamps(loopFile: loopFile).contains(where: { $0 >= sent })
                    && stamps(historyFile: historyFile).contains(where: { $0 >= sent })
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(3))
            }
            // Let the trailing messages of this change (carrier, operstate) pass.
            try await Task.sleep(for: .milliseconds(30))
        }
        return Report(
            events: events, daemon: latencies(stamps(historyFile: historyFile), after: starts),
            loop: latencies(stamps(loopFile: loopFile), after: starts))
    }

    /// For each change, the first stamp between it and the next, minus it, in milliseconds.
    static func latencies(_ stamps: [Int64], after starts: [Int64]) -> [Double] {
        let sorted = stamps.sorted()
        var out: [Double] = []
        for (index, start) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1] : Int64.max
            if let first = sorted.first(where: { $0 >= start && $0 < end }) {
                out.append(Double(first - start) / 1e6)
            }
        }
        return out
    }

    static func stamps(loopFile: String) -> [Int64] {
        (BenchProcess.readText(loopFile) ?? "").split(separator: "\n").compactMap { Int64($0) }
    }

    /// The stamps `date +%s%N` printed for the daemon, from the history's output excerpts.
    static func stamps(historyFile: String) -> [Int64] {
        var out: [Int64] = []
        for line in (BenchProcess.readText(historyFile) ?? "").split(separator: "\n") {
            // A history line that is not JSON (a torn last line) carries no stamps; the benchmark
            // counts the stamps it finds against those it expects.
            guard let document = try? JSONValue.parse(Array(line.utf8)),
                case .array(let actions)? = document.member("actions")
            else { continue }
            for action in actions {
                guard let output = action.member("outcome")?.member("output")?.stringValue,
                    output.hasPrefix("stdout: ")
                else { continue }
                if let stamp = Int64(output.dropFirst(8).prefix { $0.isNumber }) { out.append(stamp) }
            }
        }
        return out
    }

    static func render(_ report: Report, json: Bool) -> [String] {
        func row(_ values: [Double]) -> (p50: Double, p90: Double, p99: Double) {
            (Report.percentile(values, 0.5), Report.percentile(values, 0.9), Report.percentile(values, 0.99))
        }
        let d = row(report.daemon)
        let l = row(report.loop)
        if json {
            return [
                JSONValue.object([
                    ("version", .number(1)), ("benchmark", .string("daemon")),
                    ("events", .number(Double(report.events))),
                    (
                        "daemon_ms",
                        .object([
                            ("n", .number(Double(report.daemon.count))), ("p50", .number(d.p50)),
                            ("p90", .number(d.p90)), ("p99", .number(d.p99)),
                        ])
                    ),
                    (
                        "loop_ms",
                        .object([
                            ("n", .number(Double(report.loop.count))), ("p50", .number(l.p50)), ("p90", .number(l.p90)),
                            ("p99", .number(l.p99)),
                        ])
                    ),
                    ("ratio", .number((report.ratio * 1000).rounded() / 1000)),
                ]).compact
            ]
        }
        func ms(_ value: Double) -> String { String((value * 100).rounded() / 100) + " ms" }
        return Table.render([
            ["link change → action starts", "n", "p50", "p90", "p99"],
            [
                "netrules run (rule → run: date)", "\(report.daemon.count)/\(report.events)", ms(d.p50), ms(d.p90),
                ms(d.p99),
            ],
            [
                "ip monitor link | while read (sh)", "\(report.loop.count)/\(report.events)", ms(l.p50), ms(l.p90),
                ms(l.p99),
            ],
        ]) + ["ratio (p50 netrules / p50 loop): \((report.ratio * 1000).rounded() / 1000)"]
    }
}
