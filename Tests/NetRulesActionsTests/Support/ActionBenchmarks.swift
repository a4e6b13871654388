import NetRulesCore
import NetRulesHTTP
import NetRulesSystem
import NetRulesTesting

@testable import NetRulesActions

/// Measurements of the action runner for `ActionBenchmarkTests` (`scripts/bench-actions`); test
/// code, so none of it is compiled into `netrules`.
enum ActionBenchmarks {
    /// Percentiles of a series of durations.
    struct Figures: Sendable, CustomStringConvertible {
        var count: Int
        var p50: Duration
        var p99: Duration
        var maximum: Duration
        /// Operations per second over the whole run (for throughput figures).
        var perSecond: Double

        init(_ samples: [Duration], total: Duration) {
            let sorted = samples.sorted()
            count = sorted.count
            func percentile(_ p: Double) -> Duration {
                sorted.isEmpty ? .zero : sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
            }
            p50 = percentile(0.50)
            p99 = percentile(0.99)
            maximum = sorted.last ?? .zero
            perSecond = total > .zero ? Double(count) / DurationSyntax.seconds(total) : 0
        }

        var description: String {
            "n=\(count) p50=\(ActionResult.milliseconds(p50)) p99=\(ActionResult.milliseconds(p99)) "
                + "max=\(ActionResult.milliseconds(maximum)) rate=\(Int(perSecond))/s"
        }
    }

    /// Spawn-to-exit time of a trivial `run:` action (`/bin/sh -c true`), one at a time.
    ///
    /// Each sample runs from just before `posix_spawn` until the child has been reaped, including
    /// the pipes, the environment and the JSON document on stdin that every `run:` gets.
    /// - Parameter count: How many runs to time.
    static func spawnToExit(count: Int) async -> Figures {
        let context = ActionContext(
            firing: Firing(rule: "bench", edge: .enter, at: .zero, facts: FactStore(), actions: []),
            wallTime: "1970-01-01T00:00:00Z", environment: ["PATH": "/usr/bin:/bin"]
        )
        let process = ChildProcess(
            executablePath: "/bin/sh", arguments: [Array("sh".utf8), Array("-c".utf8), Array("true".utf8)],
            environment: FiringEnvironment.entries(for: context), workingDirectory: nil,
            standardInput: FiringDocument.render(context), timeout: .seconds(10)
        )
        var samples: [Duration] = []
        let start = ContinuousClock.now
        for _ in 0..<count {
            if let outcome = try? await process.run(on: .testLoop) { samples.append(outcome.duration) }
        }
        return Figures(samples, total: ContinuousClock.now - start)
    }

    /// Execute-to-result time of a `run:` action whose program is external (`/bin/true`), through
    /// the whole `RunExecutor`: started directly, or (`direct: false`) with `/bin/sh -c` as
    /// before direct exec.
    /// - Parameters:
    ///   - count: How many runs to time.
    ///   - direct: Whether the executor may start the program without the shell.
    static func runAction(count: Int, direct: Bool) async -> Figures {
        let context = ActionContext(
            firing: Firing(rule: "bench", edge: .enter, at: .zero, facts: FactStore(), actions: []),
            wallTime: "1970-01-01T00:00:00Z", environment: ["PATH": "/usr/bin:/bin"]
        )
        var executor = RunExecutor(loop: .testLoop)
        executor.startsSimpleCommandsDirectly = direct
        guard let command = try? ShellCommandTemplate("/bin/true {{rule}}") else { return Figures([], total: .zero) }
        let action = RunAction(command: command, timeout: .seconds(10))
        var samples: [Duration] = []
        let start = ContinuousClock.now
        for _ in 0..<count {
            let begin = ContinuousClock.now
            let result = await executor.execute(
                action, in: context, result: ActionResult(rule: "bench", edge: .enter, index: 0, kind: "run"))
            if result.isSuccess { samples.append(ContinuousClock.now - begin) }
        }
        return Figures(samples, total: ContinuousClock.now - start)
    }

    /// Webhook deliveries per second to `url` through a real runner and outbox.
    ///
    /// Submits `count` firings of `rules` different rules, each with one JSON webhook, and times
    /// until all are delivered (each one fsynced to the outbox first and removed after its 2xx).
    /// Samples are per-delivery durations.
    /// - Parameters:
    ///   - url: A local server that answers 2xx.
    ///   - stateDirectory: A scratch state directory.
    static func webhookThroughput(
        url: String, count: Int, rules: Int = 8, concurrency: Int = 8, stateDirectory: String,
        httpClient: HTTPClient = HTTPClient()
    ) async throws -> Figures {
        let runner = ActionRunner(
            loop: .testLoop, stateDirectory: stateDirectory, httpClient: httpClient, concurrency: concurrency,
            environment: [:])
        let template = try Template(url)
        let action = WebhookAction(
            url: template, body: .json(.object([ConfigMember("rule", .string("{{rule}}"))])), attempts: 1)
        let results = runner.results
        let start = ContinuousClock.now
        for n in 0..<count {
            let firing = Firing(
                rule: "bench-\(n % max(1, rules))", edge: .enter, at: .zero, facts: FactStore(),
                actions: [ActionSpec(action)])
            await runner.submit(firing, wallTime: "1970-01-01T00:00:00Z")
        }
        await runner.drain()
        let total = ContinuousClock.now - start
        var samples: [Duration] = []
        for await result in results {
            if result.isSuccess { samples.append(result.duration) }
            if samples.count == count { break }
        }
        return Figures(samples, total: total)
    }
}
