import Synchronization

/// Collects output lines from concurrent writers.
package final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    package init() {}

    /// Every line so far, in the order they came.
    package var all: [String] { lines.withLock { $0 } }
    /// A writer to hand to the code under test.
    package var append: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
}
