import NetRulesActions
import NetRulesCLI
import NetRulesCore
import NetRulesDaemon
import NetRulesLinux
internal import NetRulesSystem

/// `netrules-bench load`: the real daemon under load, in a network namespace of its own.
///
/// - **Many rules:** 1,000 rules loaded, 100 of which fire on one link change (each runs
///   `date +%s%N`): the time from the change to the first and to the last action start, over
///   `rounds` changes up.
/// - **A flood of facts:** an observer plugin (a line of perl) prints `rate` fact updates a second
///   for `seconds` seconds. The daemon's CPU use, its resident memory at the start, middle and end,
///   and whether the last update arrived (the daemon's observer streams are unbounded and in
///   order, so the last one arriving means none was dropped), and how long after the plugin's last
///   line it did.
enum LoadBenchmark {
    struct ManyRules {
        var rules: Int
        var firing: Int
        var rounds: Int
        /// Per round, milliseconds from the change to the first and to the last action start.
        var first: [Double]
        var last: [Double]
        /// How many of the firing rules' actions started, per round.
        var started: [Int]
    }

    struct Flood {
        var rate: Int
        var seconds: Int
        var sent: Int
        /// The last `bench.seq` the daemon had when asked after the plugin stopped; nil when unknown.
        var lastSeen: Int?
        /// Seconds from the plugin's last line until the daemon had it.
        var catchUp: Double?
        var cpuPercent: Double
        /// Resident memory in KiB at the flood's start, half-way and end.
        var rss: [Int]
    }

    // MARK: Many rules

    static func manyRulesFile(rules: Int, firing: Int) -> String {
        var text = "version: 1\nrules:\n"
        for i in 0..<rules {
            let interface = i < firing ? "nrb0" : "nrq\(i)"
            text += """
                  - name: load-\(i)
                    when: { interface: { name: \(interface), state: up } }
                    do:
                      - run: date +%s%N

                """
        }
        return text
    }

    static func manyRules(
        rules: Int = 1_000, firing: Int = 100, rounds: Int = 5, netrules: String, loop: ThreadExecutor
    ) async throws -> ManyRules {
        let namespace = try await BenchTestbed(netrules: netrules, loop: loop)
        do {
            try namespace.addVethPair("nrb0", "nrb1")
            let file = namespace.directory + "/load.yaml"
            try write(manyRulesFile(rules: rules, firing: firing), to: file)
            _ = try await namespace.startDaemon(rules: file)
            try await Task.sleep(for: .milliseconds(500))
            let history = namespace.directory + "/state/history.jsonl"
            var report = ManyRules(rules: rules, firing: firing, rounds: rounds, first: [], last: [], started: [])
            let clock = ContinuousClock()
            for _ in 0..<rounds {
                let sent = try await LinkSwitch.set("nrb0", up: true, inNamespace: namespace.path)
                let deadline = clock.now + .seconds(10)
                var stamps: [Int64] = []
                while clock.now < deadline {
                    stamps = DaemonBenchmark.stamps(historyFile: history).filter { $0 >= sent }
                    if stamps.count >= firing { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                report.started.append(stamps.count)
                if let first = stamps.min(), let last = stamps.max() {
                    report.first.append(Double(first - sent) / 1e6)
                    report.last.append(Double(last - sent) / 1e6)
                }
                _ = try await LinkSwitch.set("nrb0", up: false, inNamespace: namespace.path)
                try await Task.sleep(for: .milliseconds(300))
            }
            await namespace.tearDown()
            return report
        } catch {
            await namespace.tearDown()
            throw error
        }
    }

    // MARK: Flood

    /// The plugin: `rate` lines a second of `{"bench.seq": N}`, paced against the clock, then it
    /// sleeps (an observer plugin that exits makes its facts unknown).
    static func feeder(rate: Int, seconds: Int) -> String {
        """
        use Time::HiRes qw(time sleep); $| = 0; my $n = \(rate * seconds); my $t0 = time;
        for my $i (1 .. $n) {
          print "{\\"bench.seq\\": $i}\\n";
          if ($i % 100 == 0) { $| = 1; $| = 0; my $d = $t0 + $i / \(rate) - time; sleep($d) if $d > 0; }
        }
        $| = 1; print STDERR "feeder: done\\n"; sleep(3600);
        """
    }

    static func flood(
        rate: Int = 10_000, seconds: Int = 10, netrules: String, loop: ThreadExecutor
    ) async throws -> Flood {
        let namespace = try await BenchTestbed(netrules: netrules, loop: loop)
        do {
            guard let perl = BenchProcess.resolve("perl") else {
                throw CommandError.runtime("the flood benchmark's plugin is a line of perl, and perl is not installed")
            }
            let file = namespace.directory + "/flood.yaml"
            let script = feeder(rate: rate, seconds: seconds)
            try write(
                """
                version: 1
                observers:
                  - name: feed
                    command: [\(perl), -e, \(JSONValue.string(script).compact)]
                rules:
                  - name: flood
                    when: { fact: { key: bench.seq, equals: -1 } }
                    do:
                      - run: "true"

                """, to: file)
            let socket = try await namespace.startDaemon(rules: file)
            guard let pid = BenchProcess.daemonPID(of: netrules, marker: namespace.name) else {
                throw CommandError.runtime("cannot find the daemon's process")
            }
            let clock = ContinuousClock()
            // The daemon starts the plugin as it starts: measure from the first update seen.
            let started = clock.now
            while clock.now - started < .seconds(10), try await seq(socket) == nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            let begin = clock.now
            var rss = [BenchProcess.memory(of: pid)?.rss ?? 0]
            let cpuBefore = BenchProcess.cpuSeconds(of: pid) ?? 0
            try await Task.sleep(until: begin + .seconds(seconds) / 2, clock: clock)
            rss.append(BenchProcess.memory(of: pid)?.rss ?? 0)
            try await Task.sleep(until: begin + .seconds(seconds), clock: clock)
            let sent = rate * seconds
            var lastSeen = try await seq(socket)
            while clock.now - begin < .seconds(seconds + 30), (lastSeen ?? 0) < sent {
                try await Task.sleep(for: .milliseconds(20))
                lastSeen = try await seq(socket)
            }
            let end = clock.now
            let cpu = (BenchProcess.cpuSeconds(of: pid) ?? cpuBefore) - cpuBefore
            rss.append(BenchProcess.memory(of: pid)?.rss ?? 0)
            let elapsed = DurationSyntax.seconds(end - begin)
            await namespace.tearDown()
            return Flood(
                rate: rate, seconds: seconds, sent: sent, lastSeen: lastSeen,
                catchUp: lastSeen == sent ? max(0, elapsed - Double(seconds)) : nil,
                cpuPercent: cpu / elapsed * 100, rss: rss)
        } catch {
            await namespace.tearDown()
            throw error
        }
    }

    /// The daemon's `bench.seq`, asked through its control socket.
    static func seq(_ socket: String) async throws -> Int? {
        guard let client = try ControlClient.connect(path: socket, timeout: .seconds(5)) else { return nil }
        let answer = try await client.response(to: ControlRequest.status.document)
        return answer.member("facts")?.member("bench.seq")?.numberValue.map { Int($0) }
    }

    static func write(_ text: String, to path: String) throws {
        guard BenchProcess.writeFile(path, Array(text.utf8)) else {
            throw CommandError.runtime("cannot write \(path)")
        }
    }

    // MARK: Webhooks queued while offline

    struct Backlog {
        var webhooks: Int
        /// Seconds from the event until every webhook was in the outbox (queued, waiting for online).
        var queueing: Double
        /// Seconds from "online" until the server had every delivery.
        var delivery: Double?
        var delivered: Int
        /// Resident memory in KiB: before the event, with everything queued, after delivery.
        var rss: [Int]
        var deliveriesPerSecond: Double? { delivery.map { $0 > 0 ? Double(delivered) / $0 : .infinity } }
    }

    /// An HTTP server on the namespace's loopback that answers every POST with 200 and appends one
    /// line per request to `count` (Python's standard library: the bench needs no server of its own).
    static func sink(port: Int, count: String) -> String {
        """
        import http.server, sys
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
                with open("\(count)", "a") as f: f.write("1\\n")
            def log_message(self, *a): pass
        http.server.ThreadingHTTPServer(("127.0.0.1", \(port)), H).serve_forever()
        """
    }

    /// `webhooks` rules, each sending one webhook `when: online` on the same plugin fact; the
    /// plugin turns that fact on when `go` appears and reports `connectivity: online` when
    /// `online` appears.
    static func backlogRules(webhooks: Int, perl: String, port: Int, go: String, online: String) -> String {
        let script = """
            $| = 1; sleep(0.05) until -e "\(go)"; print "{\\"bench.go\\": 1}\\n";
            sleep(0.05) until -e "\(online)"; print "{\\"connectivity\\": \\"online\\"}\\n"; sleep(3600);
            """
        var text = """
            version: 1
            observers:
              - name: feed
                command: [\(perl), -MTime::HiRes=sleep, -e, \(JSONValue.string(script).compact)]
            rules:

            """
        for i in 0..<webhooks {
            text += """
                  - name: hook-\(i)
                    when: { fact: { key: bench.go, equals: 1 } }
                    do:
                      - webhook: { url: "http://127.0.0.1:\(port)/hook", when: online, json: { n: \(i) } }

                """
        }
        return text
    }

    static func backlog(webhooks: Int, netrules: String, loop: ThreadExecutor) async throws -> Backlog {
        let namespace = try await BenchTestbed(netrules: netrules, loop: loop)
        do {
            guard let perl = BenchProcess.resolve("perl"), let python = BenchProcess.resolve("python3") else {
                throw CommandError.runtime("the webhook backlog needs perl and python3 (its HTTP server)")
            }
            let port = 18_090
            let directory = namespace.directory
            let count = directory + "/delivered"
            let go = directory + "/go"
            let online = directory + "/online"
            namespace.start([python, "-c", sink(port: port, count: count)], log: directory + "/sink.log")
            let file = directory + "/backlog.yaml"
            try write(backlogRules(webhooks: webhooks, perl: perl, port: port, go: go, online: online), to: file)
            // The point is to queue them all: an outbox sized for the backlog, not the daemon's defaults.
            _ = try await namespace.startDaemon(
                rules: file,
                extraArguments: [
                    "--outbox-limit", "\(max(webhooks, OutboxLimits.default.pending))", "--outbox-bytes", "1GiB",
                ])
            guard let pid = BenchProcess.daemonPID(of: netrules, marker: namespace.name) else {
                throw CommandError.runtime("cannot find the daemon's process")
            }
            let outbox = directory + "/state/outbox"
            let clock = ContinuousClock()
            var rss = [BenchProcess.memory(of: pid)?.rss ?? 0]
            try write("", to: go)
            let queueStart = clock.now
            while clock.now - queueStart < .seconds(600), BenchProcess.count(in: outbox, suffix: ".json") < webhooks {
                try await Task.sleep(for: .milliseconds(50))
            }
            let queueing = DurationSyntax.seconds(clock.now - queueStart)
            rss.append(BenchProcess.memory(of: pid)?.rss ?? 0)
            try write("", to: online)
            let deliveryStart = clock.now
            var delivered = 0
            while clock.now - deliveryStart < .seconds(600) {
                delivered = (BenchProcess.readText(count) ?? "").utf8.count / 2
                if delivered >= webhooks, BenchProcess.count(in: outbox, suffix: ".json") == 0 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let delivery = delivered >= webhooks ? DurationSyntax.seconds(clock.now - deliveryStart) : nil
            rss.append(BenchProcess.memory(of: pid)?.rss ?? 0)
            await namespace.tearDown()
            return Backlog(
                webhooks: webhooks, queueing: queueing, delivery: delivery, delivered: delivered, rss: rss)
        } catch {
            await namespace.tearDown()
            throw error
        }
    }

    // MARK: Output

    static func render(_ many: ManyRules, _ flood: Flood, _ backlog: Backlog, json: Bool) -> [String] {
        func ms(_ values: [Double], _ p: Double) -> Double {
            (DaemonBenchmark.Report.percentile(values, p) * 100).rounded() / 100
        }
        let complete = many.started.allSatisfy { $0 == many.firing }
        if json {
            return [
                JSONValue.object([
                    ("version", .number(1)), ("benchmark", .string("load")),
                    (
                        "rules",
                        .object([
                            ("loaded", .number(Double(many.rules))), ("firing", .number(Double(many.firing))),
                            ("rounds", .number(Double(many.rounds))),
                            ("actions_started", .array(many.started.map { .number(Double($0)) })),
                            ("first_action_ms_p50", .number(ms(many.first, 0.5))),
                            ("last_action_ms_p50", .number(ms(many.last, 0.5))),
                            ("last_action_ms_max", .number(ms(many.last, 1))),
                        ])
                    ),
                    (
                        "flood",
                        .object([
                            ("rate_per_second", .number(Double(flood.rate))),
                            ("seconds", .number(Double(flood.seconds))), ("sent", .number(Double(flood.sent))),
                            ("last_seen", flood.lastSeen.map { .number(Double($0)) } ?? .null),
                            ("dropped", .number(Double(flood.sent - (flood.lastSeen ?? 0)))),
                            ("catch_up_seconds", flood.catchUp.map { .number(($0 * 1000).rounded() / 1000) } ?? .null),
                            ("cpu_percent", .number((flood.cpuPercent * 10).rounded() / 10)),
                            ("rss_kib", .array(flood.rss.map { .number(Double($0)) })),
                        ])
                    ),
                    (
                        "webhooks",
                        .object([
                            ("queued", .number(Double(backlog.webhooks))),
                            ("queueing_seconds", .number((backlog.queueing * 1000).rounded() / 1000)),
                            ("delivered", .number(Double(backlog.delivered))),
                            (
                                "delivery_seconds",
                                backlog.delivery.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
                            ),
                            (
                                "deliveries_per_second",
                                backlog.deliveriesPerSecond.map { .number($0.rounded()) } ?? .null
                            ),
                            ("rss_kib", .array(backlog.rss.map { .number(Double($0)) })),
                        ])
                    ),
                ]).compact
            ]
        }
        var lines = [
            "\(many.rules) rules loaded, \(many.firing) fire on one link change (\(many.rounds) changes):"
        ]
        lines += Table.render([
            ["", "p50", "max"],
            ["first action starts", "\(ms(many.first, 0.5)) ms", "\(ms(many.first, 1)) ms"],
            ["last action starts", "\(ms(many.last, 0.5)) ms", "\(ms(many.last, 1)) ms"],
        ]).map { "  " + $0 }
        lines.append(
            "  actions started per change: \(many.started.map(String.init).joined(separator: ", "))"
                + (complete ? "" : " (expected \(many.firing) each)"))
        lines.append("observer plugin, \(flood.rate) fact updates/s for \(flood.seconds) s:")
        let dropped = flood.sent - (flood.lastSeen ?? 0)
        lines.append(
            "  updates sent \(flood.sent), last seen \(flood.lastSeen.map(String.init) ?? "none"), dropped \(dropped)"
                + (flood.catchUp.map { ", caught up \(Int(($0 * 1000).rounded())) ms after the last line" } ?? ""))
        lines.append("  daemon CPU \((flood.cpuPercent * 10).rounded() / 10) % of one core")
        lines.append(
            "  resident memory (start, middle, end): " + flood.rss.map { "\($0 / 1024) MiB" }.joined(separator: ", "))
        lines.append("\(backlog.webhooks) webhooks (one rule each) fired while offline, then online:")
        lines.append("  all in the outbox after \((backlog.queueing * 100).rounded() / 100) s")
        if let seconds = backlog.delivery, let rate = backlog.deliveriesPerSecond {
            lines.append(
                "  all \(backlog.delivered) delivered \((seconds * 100).rounded() / 100) s after coming online: \(Int(rate)) deliveries/s"
            )
        } else {
            lines.append("  only \(backlog.delivered) of \(backlog.webhooks) delivered within 10 minutes")
        }
        lines.append(
            "  resident memory (before, queued, delivered): "
                + backlog.rss.map { "\($0 / 1024) MiB" }.joined(separator: ", "))
        return lines
    }
}
