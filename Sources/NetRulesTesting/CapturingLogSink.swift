import NetRulesCore
import Synchronization

/// Keeps every record in memory, for tests of libraries that take a `Logger`.
///
/// Thread-safe: records are appended under a mutex, in the order they were written.
package final class CapturingLogSink: LogSink {
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

    /// A logger that writes every level to this sink.
    package func logger(label: String = "test") -> Logger {
        Logger(label: label, level: .trace, sink: self)
    }
}
