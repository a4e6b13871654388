internal import NetRulesSystem
import Synchronization

/// A sink writing to the process's standard output or standard error.
///
/// Each ``write(_:)`` goes straight to write(2), with no buffer in between, so output is visible immediately (a
/// streaming `simulate` or `watch` piped into another program must not sit in a stdio buffer) and nothing is lost
/// if the process exits abruptly. A lock per stream keeps each call's text contiguous when several tasks write at
/// once. Do not mix it with `print`, whose stdio buffer could reorder output relative to this sink.
package final class StandardOutputSink: TextOutputSink {
    /// The sink for standard output: command results, help and version.
    package static let standardOutput = StandardOutputSink(fileDescriptor: standardOutputFileDescriptor)

    /// The sink for standard error: diagnostics, logs and usage errors.
    package static let standardError = StandardOutputSink(fileDescriptor: standardErrorFileDescriptor)

    private let fileDescriptor: CInt

    // Held for a whole write so that a partial write(2) cannot let another thread's text in between.
    private let lock = Mutex(())

    /// Creates a sink for an open descriptor that it neither owns nor closes; internal so tests can pass a pipe.
    init(fileDescriptor: CInt) {
        self.fileDescriptor = fileDescriptor
    }

    /// Whether the descriptor is a terminal: it answers `TIOCGWINSZ` (ioctl_tty(2)), as
    /// `isatty(3)` asks. ``CommandIO`` asks once per command.
    package var isTerminal: Bool {
        if case .success = sys_ioctl_TIOCGWINSZ(fileDescriptor) { return true }
        return false
    }

    /// Writes `text` to the stream completely, retrying partial and interrupted writes.
    ///
    /// Write errors are dropped: there is nowhere left to report a failing standard stream. A closed pipe raises
    /// SIGPIPE as for any command-line tool, which ends `netrules status | head` quietly.
    ///
    /// - Parameter text: The text to write.
    package func write(_ text: String) {
        var text = text
        lock.withLock { _ in
            text.withUTF8 { bytes in
                var remaining = UnsafeRawBufferPointer(bytes)
                while !remaining.isEmpty {
                    let chunk = remaining
                    guard case .success(let written) = sys_write(fileDescriptor, chunk),
                        written > 0
                    else { return }
                    remaining = UnsafeRawBufferPointer(rebasing: remaining[written...])
                }
            }
        }
    }
}
