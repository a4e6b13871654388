import FoundationEssentials
@preconcurrency internal import Glibc
import NetRulesCLI
import NetRulesCore
import NetRulesDaemon
import NetRulesMQTT
internal import NetRulesSystem
import Synchronization

/// `netrules-bench mqtt` (root): the real daemon with `mqtt:` against a mosquitto on a unix socket
/// of the benchmark's work directory (docs/mqtt.md), in a network namespace of its own.
///
/// - **Latency:** an observer plugin (`sh` reading JSON lines from a FIFO the benchmark writes)
///   changes `ssid`, which `publish:` puts in `<prefix>/state`; a subscriber in this process (an
///   `MQTTLink` announcing nothing) timestamps each new state. Changes are 150 ms apart, past the
///   100 ms coalescing of the state, so each one is published on its own.
/// - **Idle:** `IdleBenchmark`'s count of wake-ups, with a connected client and keepalive 60 s,
///   publishing facts no probe serves (`connectivity` and `signal`, in the default `publish:`,
///   would add the portal probe's and the signal sampling's wake-ups).
/// - **Backlog:** `actions` rules each with one QoS 1 `mqtt:` action fire while the broker is
///   down; time until every one is in the outbox, then, once the broker is back, the time until
///   the daemon reconnected and how fast the subscriber received them, and the daemon's memory.
enum MQTTBenchmark {
    struct Latency {
        var changes: Int
        /// Milliseconds from writing the change to the subscriber's receiving the new state.
        var milliseconds: [Double]
        /// Changes whose state did not arrive within 2 s.
        var missed: Int
    }

    struct Backlog {
        var actions: Int
        /// Seconds from the firing until every action was in the outbox.
        var queueing: Double
        /// Seconds from when the restarted broker could be reached (its subscriber subscribed
        /// first) to the first delivery (the daemon's reconnect back-off).
        var reconnect: Double?
        /// Seconds from the first delivery to the last the subscriber received.
        var delivery: Double?
        var received: Int
        /// Outbox entries left once the deliveries stopped.
        var left: Int
        /// Resident memory in KiB: before the firing, with everything queued, after delivery.
        var rss: [Int]
        var deliveriesPerSecond: Double? {
            delivery.map { $0 > 0 ? Double(received - 1) / $0 : .infinity }
        }
    }

    static func command(_ arguments: ParsedArguments, _ io: CommandIO, netrules: String) async throws -> Int32 {
        guard let seconds = Int(arguments.value("seconds") ?? "60"), (1...3600).contains(seconds) else {
            throw CommandError.runtime("--seconds must be a whole number from 1 to 3600")
        }
        let latency = try await measureLatency(changes: 200, netrules: netrules, loop: io.loop)
        let idle = try await measureIdle(
            seconds: seconds, environment: io.environment, netrules: netrules, loop: io.loop)
        let backlog = try await measureBacklog(actions: 1_000, netrules: netrules, loop: io.loop)
        for line in render(latency, idle, backlog, json: arguments.flag("json")) { io.print(line) }
        return ExitCode.success
    }

    // MARK: The pieces every measurement shares

    /// The plugin: every line written to `fifo` is printed as a fact update.
    static func relay(fifo: String) -> String {
        "while IFS= read -r line; do printf '%s\\n' \"$line\"; done < '\(fifo)'"
    }

    static func rules(broker: String, fifo: String, keepalive: Int = 60, body: String) -> String {
        """
        version: 1
        mqtt:
          broker: \(broker)
          client_id: bench
          keepalive: \(keepalive)s
          publish: [ssid]
          discovery: false
        observers:
          - name: relay
            command: [/bin/sh, -c, \(JSONValue.string(relay(fifo: fifo)).compact)]
            provides: [ssid]
        rules:
        \(body)
        """
    }

    /// A FIFO at `path`, held open for reading and writing (so neither side blocks on open, and
    /// the plugin's reads never see an end while the benchmark runs).
    final class Feed: Sendable {
        let fd: CInt

        init(path: String) async throws {
            guard mkfifo(path, 0o600) == 0 else { throw CommandError.runtime("cannot make the FIFO \(path)") }
            guard case .success(let fd) = sys_open(path, O_RDWR | O_CLOEXEC) else {
                throw CommandError.runtime("cannot open the FIFO \(path)")
            }
            self.fd = fd
        }

        func send(_ line: String) throws {
            let bytes = Array((line + "\n").utf8)
            guard case .success(bytes.count) = bytes.withUnsafeBytes({ sys_write(fd, $0) }) else {
                throw CommandError.runtime("cannot write to the plugin's FIFO")
            }
        }

        func close() { _ = sys_close(fd) }
    }

    /// A subscriber in this process: it records when each message arrived, by topic and payload.
    final class Subscriber: Sendable {
        let link: MQTTLink
        let task: Task<Void, Never>
        let inbox = Inbox()

        /// What the link's callback records, on the link's thread.
        final class Inbox: Sendable {
            let arrivals = Mutex<[(topic: String, payload: [UInt8], at: ContinuousClock.Instant)]>([])
            let connected = Mutex(false)
        }

        init(socket: String, loop: ThreadExecutor, topics: [String]) throws {
            var configuration = MQTTLink.Configuration(
                broker: .unix(path: socket), clientID: "bench-subscriber", keepalive: .seconds(60),
                prefix: "bench-subscriber", subscriptions: topics)
            configuration.announces = false
            let inbox = self.inbox
            let link = try MQTTLink(configuration: configuration, loop: loop, logger: .disabled) { event in
                let now = ContinuousClock.now
                switch event {
                case .message(let topic, let payload, _):
                    inbox.arrivals.withLock { $0.append((topic, payload, now)) }
                case .connected: inbox.connected.withLock { $0 = true }
                case .disconnected: inbox.connected.withLock { $0 = false }
                }
            }
            self.link = link
            task = Task(executorPreference: loop) {
                do {
                    try await link.run()
                } catch {
                    // stderr: with --json, stdout carries only the document.
                    fputs("netrules-bench: the subscriber's link failed: \(error)\n", stderr)
                }
            }
        }

        /// Waits until subscribed (connected and a moment for the SUBACK), at most 10 s.
        func waitConnected() async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while !inbox.connected.withLock({ $0 }) {
                guard ContinuousClock.now < deadline else {
                    throw CommandError.runtime("the benchmark's subscriber did not connect within 10 s")
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            try await Task.sleep(for: .milliseconds(50))
        }

        func stop() async {
            link.stop()
            await task.value
        }
    }

    // MARK: Latency

    static func measureLatency(changes: Int, netrules: String, loop: ThreadExecutor) async throws -> Latency {
        let namespace = try await BenchTestbed(netrules: netrules, loop: loop)
        var broker: BenchBroker?
        var feed: Feed?
        var subscriber: Subscriber?
        do {
            let directory = namespace.directory
            broker = try await BenchBroker(directory: directory)
            feed = try await Feed(path: directory + "/changes")
            let file = directory + "/latency.yaml"
            let body = """
                  - name: never
                    when: { ssid: not-a-bench-network }
                    do:
                      - run: "true"

                """
            try LoadBenchmark.write(
                rules(broker: broker!.url, fifo: directory + "/changes", body: body), to: file)
            subscriber = try Subscriber(socket: broker!.listenPath, loop: loop, topics: ["netrules/bench/state"])
            try await subscriber!.waitConnected()
            _ = try await namespace.startDaemon(rules: file)
            // A first change, untimed: the daemon's link is connected once its state arrives.
            try feed!.send(#"{"ssid": "bench-0"}"#)
            guard try await arrival(of: "bench-0", at: subscriber!, within: .seconds(20)) != nil else {
                throw CommandError.runtime("the daemon's state never reached the subscriber; see \(directory)")
            }
            try await Task.sleep(for: .milliseconds(200))
            var report = Latency(changes: changes, milliseconds: [], missed: 0)
            let clock = ContinuousClock()
            for n in 1...changes {
                let sent = clock.now
                try feed!.send(#"{"ssid": "bench-\#(n)"}"#)
                if let at = try await arrival(of: "bench-\(n)", at: subscriber!, within: .seconds(2)) {
                    report.milliseconds.append(DurationSyntax.seconds(at - sent) * 1e3)
                } else {
                    report.missed += 1
                }
                try await Task.sleep(until: sent + .milliseconds(150), clock: clock)
            }
            await subscriber!.stop()
            feed!.close()
            await namespace.tearDown()
            broker!.stop()
            return report
        } catch {
            await subscriber?.stop()
            feed?.close()
            await namespace.tearDown()
            broker?.stop()
            throw error
        }
    }

    /// When the state whose `ssid` is `ssid` reached `subscriber`, waiting at most `limit`.
    static func arrival(of ssid: String, at subscriber: Subscriber, within limit: Duration) async throws
        -> ContinuousClock.Instant?
    {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let found = subscriber.inbox.arrivals.withLock { arrivals -> ContinuousClock.Instant? in
                // A payload that is not JSON is not the state looked for.
                arrivals.last { (try? JSONValue.parse($0.payload))?.member("ssid")?.stringValue == ssid }?.at
            }
            if let found { return found }
            // A short poll: the arrival's own timestamp is taken in the subscriber's callback.
            try await Task.sleep(for: .microseconds(200))
        }
        return nil
    }

    // MARK: Idle

    static func measureIdle(seconds: Int, environment: [String: String], netrules: String, loop: ThreadExecutor)
        async throws
        -> (report: IdleBenchmark.Report, connected: Bool)
    {
        let directory = try IdleBenchmark.makeDirectory()
        // The benchmark's own scratch directory; what cannot be removed stays under /tmp and changes
        // no figure.
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let broker = try await BenchBroker(directory: directory)
        defer { broker.stop() }
        let section = """
            mqtt:
              broker: \(broker.url)
              client_id: bench-idle
              keepalive: 60s
              # Facts no probe serves: the default list's connectivity and signal would make the daemon
              # probe and sample them, and count those wake-ups here.
              publish: [ssid, vpn, network]
              discovery: false

            """
        let report = try await IdleBenchmark.measure(
            seconds: seconds, environment: environment, netrules: netrules, extraRules: section, loop: loop)
        let log = BenchProcess.readText(broker.log) ?? ""
        // Connected for the whole window: one connection, made before it and never made again.
        let connected = log.components(separatedBy: " as bench-idle ").count - 1 == 1
        return (report, connected)
    }

    // MARK: Backlog

    static func measureBacklog(actions: Int, netrules: String, loop: ThreadExecutor) async throws -> Backlog {
        let namespace = try await BenchTestbed(netrules: netrules, loop: loop)
        var broker: BenchBroker?
        var feed: Feed?
        var subscriber: Subscriber?
        do {
            let directory = namespace.directory
            broker = try await BenchBroker(directory: directory)
            feed = try await Feed(path: directory + "/changes")
            var body = ""
            for i in 0..<actions {
                body += """
                      - name: publish-\(i)
                        when: { fact: { key: bench.go, equals: 1 } }
                        do:
                          - mqtt: { topic: "bench/out", payload: "\(i)", qos: 1 }

                    """
            }
            let file = directory + "/backlog.yaml"
            try LoadBenchmark.write(rules(broker: broker!.url, fifo: directory + "/changes", body: body), to: file)
            let socket = try await namespace.startDaemon(
                rules: file, extraArguments: ["--outbox-limit", "\(max(actions, 1000) * 2)", "--outbox-bytes", "1GiB"])
            guard let pid = BenchProcess.daemonPID(of: netrules, marker: namespace.name) else {
                throw CommandError.runtime("cannot find the daemon's process")
            }
            try await waitForMQTT(socket, state: { $0 == "connected" }, "connected")
            broker!.stop()
            try await waitForMQTT(socket, state: { $0 != "connected" }, "disconnected")

            let clock = ContinuousClock()
            let outbox = directory + "/state/outbox"
            var rss = [BenchProcess.memory(of: pid)?.rss ?? 0]
            try feed!.send(#"{"bench.go": 1}"#)
            let queueStart = clock.now
            while clock.now - queueStart < .seconds(300), BenchProcess.count(in: outbox, suffix: ".json") < actions {
                try await Task.sleep(for: .milliseconds(20))
            }
            let queueing = DurationSyntax.seconds(clock.now - queueStart)
            rss.append(BenchProcess.memory(of: pid)?.rss ?? 0)

            // The subscriber first: a daemon reconnecting before it subscribed would deliver the
            // backlog to nobody. The daemon's reconnect is timed from when it could reach the broker.
            try await broker!.start(admittingDaemon: false)
            subscriber = try Subscriber(socket: broker!.listenPath, loop: loop, topics: ["bench/out"])
            try await subscriber!.waitConnected()
            broker!.admitDaemon()
            let brokerStart = clock.now
            // Until every one arrived, or nothing came for 10 s (after the back-off's longest wait).
            var lastCount = 0
            var lastChange = clock.now
            while clock.now - brokerStart < .seconds(300) {
                let count = subscriber!.inbox.arrivals.withLock { $0.count }
                if count >= actions { break }
                if count != lastCount {
                    lastCount = count
                    lastChange = clock.now
                } else if count > 0, clock.now - lastChange > .seconds(10) {
                    break
                } else if count == 0, clock.now - brokerStart > .seconds(75) {
                    break
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            // The last PUBACKs reach the daemon after the subscriber's copies: give the outbox a moment.
            let settle = clock.now
            while clock.now - settle < .seconds(5), BenchProcess.count(in: outbox, suffix: ".json") > 0 {
                try await Task.sleep(for: .milliseconds(20))
            }
            rss.append(BenchProcess.memory(of: pid)?.rss ?? 0)
            let times = subscriber!.inbox.arrivals.withLock { $0.map(\.at) }
            let left = BenchProcess.count(in: outbox, suffix: ".json")
            await subscriber!.stop()
            feed!.close()
            await namespace.tearDown()
            broker!.stop()
            return Backlog(
                actions: actions, queueing: queueing,
                reconnect: times.first.map { DurationSyntax.seconds($0 - brokerStart) },
                delivery: times.count > 1 ? DurationSyntax.seconds(times.last! - times.first!) : nil,
                received: times.count, left: left, rss: rss)
        } catch {
            await subscriber?.stop()
            feed?.close()
            await namespace.tearDown()
            broker?.stop()
            throw error
        }
    }

    /// Waits (at most 30 s) until the daemon's `status` says its MQTT state matches.
    static func waitForMQTT(_ socket: String, state matches: (String) -> Bool, _ what: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        var last = "none"
        while ContinuousClock.now < deadline {
            if let client = try ControlClient.connect(path: socket, timeout: .seconds(5)) {
                let answer = try await client.response(to: ControlRequest.status.document)
                last = answer.member("mqtt")?.member("state")?.stringValue ?? "none"
                if matches(last) { return }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CommandError.runtime("the daemon's MQTT client was not \(what) within 30 s (last: \(last))")
    }

    // MARK: Output

    static func render(
        _ latency: Latency, _ idle: (report: IdleBenchmark.Report, connected: Bool), _ backlog: Backlog, json: Bool
    ) -> [String] {
        func ms(_ p: Double) -> Double {
            (DaemonBenchmark.Report.percentile(latency.milliseconds, p) * 1000).rounded() / 1000
        }
        func rounded(_ value: Double?, _ places: Double = 1000) -> JSONValue {
            value.map { .number(($0 * places).rounded() / places) } ?? .null
        }
        if json {
            return [
                JSONValue.object([
                    ("version", .number(1)), ("benchmark", .string("mqtt")),
                    (
                        "state_latency",
                        .object([
                            ("changes", .number(Double(latency.changes))),
                            ("received", .number(Double(latency.milliseconds.count))),
                            ("missed", .number(Double(latency.missed))),
                            ("ms_p50", .number(ms(0.5))), ("ms_p99", .number(ms(0.99))), ("ms_max", .number(ms(1))),
                        ])
                    ),
                    (
                        "idle",
                        .object([
                            ("seconds", .number(Double(idle.report.seconds))),
                            ("connected", .bool(idle.connected)),
                            ("context_switches", .number(Double(idle.report.contextSwitches))),
                            ("rss_kib", .number(Double(idle.report.residentKilobytes))),
                        ])
                    ),
                    (
                        "backlog",
                        .object([
                            ("actions", .number(Double(backlog.actions))),
                            ("queueing_seconds", rounded(backlog.queueing)),
                            ("reconnect_seconds", rounded(backlog.reconnect)),
                            ("delivery_seconds", rounded(backlog.delivery)),
                            ("received", .number(Double(backlog.received))),
                            ("outbox_left", .number(Double(backlog.left))),
                            ("deliveries_per_second", rounded(backlog.deliveriesPerSecond, 1)),
                            ("rss_kib", .array(backlog.rss.map { .number(Double($0)) })),
                        ])
                    ),
                ]).compact
            ]
        }
        var lines = ["fact change → <prefix>/state at a subscriber (unix socket, changes 150 ms apart):"]
        lines += Table.render([
            ["changes", "\(latency.changes) (\(latency.milliseconds.count) received, \(latency.missed) missed)"],
            ["p50", "\(ms(0.5)) ms"], ["p99", "\(ms(0.99)) ms"], ["max", "\(ms(1)) ms"],
        ]).map { "  " + $0 }
        lines.append("idle daemon connected to the broker, keepalive 60 s:")
        lines += IdleBenchmark.text(idle.report).map { "  " + $0 }
        lines.append("  connected throughout: \(idle.connected ? "yes" : "no (see the broker's log)")")
        lines.append("\(backlog.actions) QoS 1 mqtt: actions (one rule each) fired while the broker was down:")
        lines.append("  all in the outbox after \((backlog.queueing * 100).rounded() / 100) s")
        if let reconnect = backlog.reconnect {
            lines.append(
                "  first delivery \((reconnect * 100).rounded() / 100) s after the broker could be reached again (back-off)"
            )
        }
        if let seconds = backlog.delivery, let rate = backlog.deliveriesPerSecond {
            lines.append(
                "  \(backlog.received) received in \((seconds * 1000).rounded() / 1000) s: \(Int(rate)) deliveries/s; "
                    + "\(backlog.left) left in the outbox")
        } else {
            lines.append(
                "  only \(backlog.received) of \(backlog.actions) received; \(backlog.left) left in the outbox")
        }
        lines.append(
            "  resident memory (before, queued, delivered): "
                + backlog.rss.map { "\($0 / 1024) MiB" }.joined(separator: ", "))
        return lines
    }
}
