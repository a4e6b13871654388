import FoundationEssentials
internal import Glibc
import NetRulesCLI
import NetRulesCore
import NetRulesDaemon
internal import NetRulesSystem
import Synchronization

/// `netrules-bench idle`: how often an idle daemon wakes up, and what it costs in memory.
///
/// Starts the real daemon (`netrules run`) on a built-in rule set that needs no timer
/// (interface facts and a `run` action), in a new network namespace when root (`unshare --net`, so
/// the namespace goes away with the daemon), else on the host. Once the daemon answers on its
/// control socket and has settled for a second, it counts every thread's context switches
/// (`/proc/PID/task/*/status`) over the window: a thread blocked for good adds none, so the total
/// is the number of wake-ups. Also CPU time (`/proc/PID/stat`), RSS and PSS
/// (`/proc/PID/smaps_rollup`; the bench process maps the same executable and libraries, so the
/// daemon's PSS here is lower than alone). The daemon is stopped and its files removed whatever
/// happens.
enum IdleBenchmark {
    /// Rules that need no timer, no probe and no clock: the daemon has nothing to do until an
    /// interface changes. Both fire once at start, so the action path has run before the window.
    static let rules = """
        version: 1
        rules:
          - name: bench-link-missing
            when: { interface: { name: bench0, state: down } }
            do:
              - run: "true"
          - name: loopback-up
            when: { interface: { name: lo } }
            do:
              - run: "true"

        """

    struct ThreadReport {
        var tid: Int
        var name: String
        var contextSwitches: Int
    }

    struct Report {
        var seconds: Int
        var inNamespace: Bool
        var threads: [ThreadReport]
        var cpu: Duration
        var residentKilobytes: Int
        var proportionalKilobytes: Int

        var contextSwitches: Int { threads.reduce(0) { $0 + $1.contextSwitches } }
        var wakeupsPerSecond: Double { Double(contextSwitches) / Double(seconds) }
    }

    static func command(_ arguments: ParsedArguments, _ io: CommandIO, netrules: String) async throws -> Int32 {
        guard let seconds = Int(arguments.value("seconds") ?? "60"), (1...3600).contains(seconds) else {
            throw CommandError.runtime("--seconds must be a whole number from 1 to 3600")
        }
        let report = try await measure(
            seconds: seconds, environment: io.environment, netrules: netrules, loop: io.loop)
        if arguments.flag("json") {
            io.print(json(report).compact)
        } else {
            for line in text(report) { io.print(line) }
        }
        return ExitCode.success
    }

    // MARK: - Measuring

    /// Measures the daemon on ``rules`` with `extraRules` (top-level sections such as `mqtt:`) after them.
    static func measure(
        seconds: Int, environment: [String: String], netrules: String, extraRules: String = "", loop: ThreadExecutor
    ) async throws -> Report {
        let directory = try makeDirectory()
        // The benchmark's own scratch directory; what cannot be removed stays under /tmp and changes
        // no figure.
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/control.sock"
        try FileManager.default.createDirectory(atPath: directory + "/rules", withIntermediateDirectories: true)
        try Data((rules + extraRules).utf8).write(to: URL(fileURLWithPath: directory + "/rules/idle.yaml"))

        var argv = [
            netrules, "run", directory + "/rules/idle.yaml", "--state-dir", directory + "/state", "--socket", socket,
        ]
        // Root: a network namespace of its own, which `unshare` creates and then execs the daemon
        // in place (so the pid is the daemon's), and which ends with the daemon and its actions.
        let candidates: [String] = ["/usr/bin/unshare", "/bin/unshare"]
        // An unshare that is missing or not executable means running without a namespace of its own,
        // which the report says (inNamespace).
        let unshare = candidates.first { (try? sys_access($0, X_OK).get()) != nil }
        let inNamespace = geteuid() == 0 && unshare != nil
        if inNamespace, let unshare { argv = [unshare, "--net"] + argv }
        // The daemon must not notify the bench's own service manager.
        var childEnvironment = environment
        childEnvironment["NOTIFY_SOCKET"] = nil
        let daemon = try BenchDaemon(argv: argv, environment: childEnvironment, log: directory + "/daemon.log")
        defer { daemon.stop() }

        try await waitUntilAnswering(daemon, socket: socket, loop: loop)
        try await QuietClock(loop: loop).sleep(for: .seconds(1))
        let before = try sampleThreads(daemon.pid)
        let cpuBefore = try cpuTicks(daemon.pid)
        try await QuietClock(loop: loop).sleep(for: .seconds(seconds))
        let after = try sampleThreads(daemon.pid)
        let cpuAfter = try cpuTicks(daemon.pid)
        let memory = try memoryKilobytes(daemon.pid)
        if let ended = daemon.exitStatus() {
            throw CommandError.runtime("the daemon ended during the measurement (\(ended)):\n\(daemon.logTail())")
        }

        var threads: [ThreadReport] = []
        for (tid, sample) in after.sorted(by: { $0.key < $1.key }) {
            let start = before[tid]?.switches ?? 0
            threads.append(ThreadReport(tid: tid, name: sample.name, contextSwitches: sample.switches - start))
        }
        // A thread that ended during the window woke at least to end.
        for (tid, sample) in before where after[tid] == nil {
            threads.append(ThreadReport(tid: tid, name: sample.name + " (ended)", contextSwitches: 1))
        }
        let ticksPerSecond = max(1, Int64(sysconf(CInt(_SC_CLK_TCK))))
        let cpu = Duration.milliseconds((cpuAfter - cpuBefore) * 1000 / ticksPerSecond)
        return Report(
            seconds: seconds, inNamespace: inNamespace, threads: threads, cpu: cpu,
            residentKilobytes: memory.rss, proportionalKilobytes: memory.pss)
    }

    /// Waits until the daemon answers `status` on its control socket (at most 30 s).
    private static func waitUntilAnswering(_ daemon: BenchDaemon, socket: String, loop: ThreadExecutor) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        let status = JSONValue.object([("version", .number(1)), ("command", .string("status"))])
        while ContinuousClock.now < deadline {
            if let ended = daemon.exitStatus() {
                throw CommandError.runtime("the daemon ended before it was ready (\(ended)):\n\(daemon.logTail())")
            }
            // The daemon is not ready until it answers; a refused or failed connection is tried
            // again until the deadline, whose error names the log.
            if let client = try? ControlClient.connect(path: socket, timeout: .seconds(5)),
                (try? await client.response(to: status)) != nil
            {
                return
            }
            try await QuietClock(loop: loop).sleep(for: .milliseconds(50))
        }
        throw CommandError.runtime("the daemon did not answer on \(socket) within 30s:\n\(daemon.logTail())")
    }

    static func makeDirectory() throws -> String {
        var template = Array("/tmp/netrules-bench-idle-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CommandError.runtime("cannot create a temporary directory in /tmp (errno \(errno))")
        }
        return String(cString: made)
    }

    // MARK: - /proc

    /// The daemon's CPU time in clock ticks, or an error saying it is gone.
    static func cpuTicks(_ pid: pid_t) throws -> Int64 {
        guard let ticks = BenchProcess.cpuTicks(of: pid) else {
            throw CommandError.runtime("cannot read /proc/\(pid)/stat")
        }
        return ticks
    }

    /// The daemon's RSS and PSS in KiB, or an error saying it is gone.
    static func memoryKilobytes(_ pid: pid_t) throws -> (rss: Int, pss: Int) {
        guard let memory = BenchProcess.memory(of: pid) else {
            throw CommandError.runtime("cannot read the memory of pid \(pid) from /proc")
        }
        return memory
    }

    /// Every thread's name and context switches (voluntary and not), by thread id.
    static func sampleThreads(_ pid: pid_t) throws -> [Int: (name: String, switches: Int)] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        var samples: [Int: (name: String, switches: Int)] = [:]
        for task in tasks {
            guard let tid = Int(task), let status = BenchProcess.readText("/proc/\(pid)/task/\(task)/status") else {
                continue
            }
            let name = BenchProcess.readText("/proc/\(pid)/task/\(task)/comm")?.split(separator: "\n").first.map(
                String.init)
            let switches =
                (BenchProcess.field("voluntary_ctxt_switches", in: status) ?? 0)
                + (BenchProcess.field("nonvoluntary_ctxt_switches", in: status) ?? 0)
            samples[tid] = (name ?? "?", switches)
        }
        guard !samples.isEmpty else { throw CommandError.runtime("no threads under /proc/\(pid)/task") }
        return samples
    }

    // MARK: - Output

    static func json(_ report: Report) -> JSONValue {
        .object([
            ("version", .number(1)), ("benchmark", .string("idle")), ("seconds", .number(Double(report.seconds))),
            ("network_namespace", .bool(report.inNamespace)),
            ("context_switches", .number(Double(report.contextSwitches))),
            ("wakeups_per_second", .number(report.wakeupsPerSecond)),
            ("cpu_ms", .number(DurationSyntax.seconds(report.cpu) * 1e3)),
            ("rss_kb", .number(Double(report.residentKilobytes))),
            ("pss_kb", .number(Double(report.proportionalKilobytes))),
            (
                "threads",
                .array(
                    report.threads.map {
                        .object([
                            ("tid", .number(Double($0.tid))), ("name", .string($0.name)),
                            ("context_switches", .number(Double($0.contextSwitches))),
                        ])
                    })
            ),
        ])
    }

    static func text(_ report: Report) -> [String] {
        let place = report.inNamespace ? "in a new network namespace" : "on the host (not root: no namespace)"
        var rows = [
            ["daemon", "\(report.threads.count) threads, \(place), rules needing no timer"],
            ["window", "\(report.seconds)s, after 1s to settle"],
            [
                "wake-ups (context switches)",
                "\(report.contextSwitches) (\(formatRate(report.wakeupsPerSecond))/s)",
            ],
        ]
        for thread in report.threads {
            rows.append(["  \(thread.name) (\(thread.tid))", "\(thread.contextSwitches)"])
        }
        rows.append(["CPU time", "\(DurationSyntax.seconds(report.cpu) * 1e3) ms"])
        rows.append(["resident memory", "RSS \(report.residentKilobytes) kB"])
        // PSS divides a shared page among the processes mapping it, and this one maps the same files.
        rows.append(["  PSS", "\(report.proportionalKilobytes) kB (pages shared with this bench process count half)"])
        return Table.render(rows)
    }

    private static func formatRate(_ rate: Double) -> String {
        let hundredths = Int((rate * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// The daemon under measurement: a `BackgroundProcess` (its own process group, its output
/// appended to a log file); `stop()` ends it (SIGTERM, SIGKILL after 5 s) and reaps it.
private final class BenchDaemon: Sendable {
    let process: BackgroundProcess
    var pid: pid_t { process.pid }
    var log: String { process.log }

    init(argv: [String], environment: [String: String], log: String) throws {
        do {
            process = try BackgroundProcess(argv, environment: environment.map { "\($0.key)=\($0.value)" }, log: log)
        } catch {
            throw CommandError.runtime("cannot start \(argv[0]): \(error.errno.message)")
        }
    }

    /// How the process ended ("exit status N", "signal N"), or nil while it runs; reaps it.
    func exitStatus() -> String? {
        process.termination?.description
    }

    /// SIGTERM, up to 5 s for a clean exit, then SIGKILL to its process group; always reaps.
    func stop() {
        process.stop(grace: .seconds(5))
    }

    /// The last lines of the daemon's log, for an error message.
    func logTail(_ count: Int = 20) -> String {
        let text = BenchProcess.readText(log) ?? ""
        return text.split(separator: "\n").suffix(count).joined(separator: "\n")
    }
}
