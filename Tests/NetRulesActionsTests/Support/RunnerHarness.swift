import NetRulesCore
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesActions

/// An `ActionRunner` over a temporary state directory, collecting its results and log lines.
final class RunnerHarness: Sendable {
    let directory = TemporaryDirectory()
    let runner: ActionRunner
    private let lines = CapturingLogSink()
    private let collected = Locked<[ActionResult]>([])
    private let collector: Task<Void, Never>

    init(
        concurrency: Int = 4, environment: [String: String] = ["PATH": "/usr/bin:/bin"],
        pluginDirectories: [String] = [],
        stateDirectory: String? = nil, outboxLimits: OutboxLimits = .default, coalescesFirings: Bool = true
    ) {
        runner = ActionRunner(
            loop: .testLoop, stateDirectory: stateDirectory ?? directory.file("state"), concurrency: concurrency,
            environment: environment,
            pluginDirectories: pluginDirectories, logger: lines.logger(),
            terminationGrace: .milliseconds(200), outboxLimits: outboxLimits, coalescesFirings: coalescesFirings
        )
        let results = runner.results
        let collected = self.collected
        collector = Task {
            for await result in results { collected.withLock { $0.append(result) } }
        }
    }

    deinit { collector.cancel() }

    var log: [String] { lines.messages }

    /// The results so far, after the runner has gone idle and the stream has caught up.
    func settledResults(expecting count: Int) async -> [ActionResult] {
        await runner.drain()
        for _ in 0..<500 {
            let results = collected.withLock { $0 }
            if results.count >= count { return results }
            try? await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("expected \(count) results, got \(collected.withLock { $0.count })")
        return collected.withLock { $0 }
    }

    static func spec(_ definition: any ActionDefinition, continueOnError: Bool = false) -> ActionSpec {
        ActionSpec(definition, continueOnError: continueOnError)
    }

    static func append(_ path: String, _ text: String) -> ActionSpec {
        spec(WriteAction(path: path, content: Fixtures.template(text), append: true))
    }

    static func run(_ command: String, continueOnError: Bool = false) -> ActionSpec {
        spec(RunAction(command: Fixtures.command(command), timeout: .seconds(10)), continueOnError: continueOnError)
    }
}

/// A `Mutex` in a class, so closures can share it.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
