import Synchronization

/// Collects output lines from concurrent writers.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var append: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
}
