import NetRulesCore

@testable import NetRulesLinux

/// Runs an observer and folds its updates into a `FactStore` a test can wait on.
///
/// Tests await outcomes through the observer's stream; the timeout is only a failure guard.
final class ObservedFacts {
    private(set) var store = FactStore()
    private var iterator: AsyncStream<FactUpdate>.Iterator
    private let continuation: AsyncStream<FactUpdate>.Continuation
    private let task: Task<Void, any Error>

    init(_ observer: some Observer) {
        let (stream, continuation) = AsyncStream.makeStream(of: FactUpdate.self, bufferingPolicy: .unbounded)
        self.iterator = stream.makeAsyncIterator()
        self.continuation = continuation
        task = Task { try await observer.run(reporting: FactReporter(continuation)) }
    }

    /// Applies updates until `predicate` holds.
    /// - Throws: `TestFailure` naming `what` and the facts seen, after `timeout`.
    @discardableResult
    func waitUntil(
        _ what: String, timeout: Duration = .seconds(10), _ predicate: (FactStore) -> Bool
    ) async throws -> FactStore {
        if predicate(store) { return store }
        let continuation = self.continuation
        let timer = Task {
            try await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        while let update = await iterator.next() {
            store.apply(update)
            if predicate(store) { return store }
        }
        throw TestFailure("timed out waiting for \(what); facts: \(store.known.map { "\($0.key)=\($0.state)" })")
    }

    /// Waits until `key` has `state`.
    @discardableResult
    func waitFor(_ key: FactKey, _ state: FactState, timeout: Duration = .seconds(10)) async throws -> FactStore {
        try await waitUntil("\(key) = \(state)", timeout: timeout) { $0[key] == state }
    }

    /// Waits for the observer to end on its own; what it threw, nil when it returned.
    func ending() async -> (any Error)? {
        do {
            try await task.value
            return nil
        } catch {
            return error
        }
    }

    /// Cancels the observer and waits for it to return.
    func stop() async throws {
        task.cancel()
        try await task.value
    }
}

extension FactState {
    /// A text value.
    static func text(_ string: String) -> FactState { .value(.string(string)) }
}
