import NetRulesCore
import Synchronization

/// Keeps every record in memory, for tests that assert what was logged.
///
/// Thread-safe: records are appended under a mutex, in the order `write` was called.
package final class InMemoryLogSink: LogSink {
    private let storage = Mutex<[Logger.Record]>([])

    /// An empty sink.
    package init() {}

    package func write(_ record: Logger.Record) {
        storage.withLock { $0.append(record) }
    }

    /// Every record so far, oldest first.
    package var records: [Logger.Record] { storage.withLock { $0 } }

    /// The messages of the records so far, oldest first.
    package var messages: [String] { records.map(\.message) }

    /// Forgets every record.
    package func removeAll() {
        storage.withLock { $0.removeAll() }
    }
}
