import NetRulesActions
import NetRulesCore
import Synchronization
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// An action sink that records firings and runs nothing: each action "runs" until the test ends it.
final class RecordingActions: ActionSink {
    let results: AsyncStream<ActionResult>
    private let continuation: AsyncStream<ActionResult>.Continuation
    private let state = Mutex<(submitted: [Firing], running: Int, stopped: Bool)>(([], 0, false))

    init() {
        (results, continuation) = AsyncStream.makeStream(of: ActionResult.self)
    }

    var submitted: [Firing] { state.withLock { $0.submitted } }

    func submit(_ firing: Firing, wallTime: String) async {
        state.withLock {
            $0.submitted.append(firing)
            $0.running += firing.actions.count - firing.firstAction
        }
    }

    /// Ends one action of `firing`, reporting success.
    func finish(_ firing: Firing, action index: Int) {
        var result = ActionResult(rule: firing.rule, edge: firing.edge, index: index, kind: firing.actions[index].kind)
        result.firingID = firing.id
        state.withLock { $0.running -= 1 }
        continuation.yield(result)
    }

    func drain() async {
        while state.withLock({ $0.running > 0 && !$0.stopped }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Actions that did not finish report nothing, as the runner's stopped actions do.
    func stop() async { state.withLock { $0.stopped = true } }
    func resumeOutbox() async {}
    func connectivityChanged(to value: String?) async {}
    func outbox() async -> OutboxSize? { nil }
}

/// The state directory's two files, kept in memory as the bytes the daemon wrote.
final class MemoryStateStore: StateStore, @unchecked Sendable {
    private let files = Mutex(SavedFiles())

    var saved: SavedFiles { files.withLock { $0 } }

    init(_ files: SavedFiles = SavedFiles()) {
        self.files.withLock { $0 = files }
    }

    func open() -> (state: PersistedState?, journalOpen: Bool) { (saved.restored, true) }
    func append(_ line: JournalDelta) throws { files.withLock { $0.apply(.appendJournal(line)) } }
    func requestFlush() {}
    func writeSnapshot(_ state: PersistedState, failed: @escaping @Sendable (StateFileError) -> Void) {
        files.withLock { $0.apply(.writeSnapshot(state)) }
    }
    nonisolated(nonsending) func finishWriting() async {}
    func setAside(because reason: String) { files.withLock { $0 = SavedFiles() } }
}

/// An observer that reports what the test tells it to.
struct ScriptedObserver: Observer {
    let name = "scripted"
    let updates: AsyncStream<FactUpdate>
    let continuation: AsyncStream<FactUpdate>.Continuation

    init() {
        (updates, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
    }

    func report(_ values: [FactKey: FactValue?]) { continuation.yield(FactUpdate(values: values)) }

    func run(reporting output: FactReporter) async throws {
        for await update in updates {
            if Task.isCancelled { break }
            output.yield(update)
        }
    }
}

/// Waits for `condition`, polling, at most `timeout`; records an issue naming `what` otherwise.
func waitUntil(
    _ what: String, timeout: Duration = .seconds(10), _ condition: () async -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting for \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
