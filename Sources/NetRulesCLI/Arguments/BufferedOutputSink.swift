import Synchronization

/// A sink that keeps everything written to it, for tests.
///
/// Tests hand one to a command in place of standard output or standard error and then compare ``text`` with the
/// expected output. It is safe to write from several tasks at once.
package final class BufferedOutputSink: TextOutputSink {
    private let storage = Mutex("")

    /// Creates an empty buffer.
    package init() {}

    /// Everything written so far, in order.
    package var text: String {
        storage.withLock { $0 }
    }

    /// Appends `text` to the buffer.
    ///
    /// - Parameter text: The text to keep.
    package func write(_ text: String) {
        storage.withLock { $0 += text }
    }
}
