import NetRulesCore

/// How a child process ended, and what it printed (bounded).
package struct ChildProcessOutcome: Sendable {
    /// The end of the direct child.
    package enum Termination: Hashable, Sendable, CustomStringConvertible {
        /// `exit(status)`.
        case exited(Int32)
        /// Ended by this signal.
        case signaled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    package var pid: Int32
    package var termination: Termination
    /// Whether the timeout expired and the group was signalled.
    package var timedOut: Bool
    package var standardOutput: CapturedOutput
    package var standardError: CapturedOutput
    /// From just before the spawn until the child was reaped.
    package var duration: Duration
    /// Ended early because the daemon shut down (the task was cancelled), not by its timeout.
    package var stopped = false
    /// Whether the signal that ended it also dumped core (`WCOREDUMP`).
    package var coreDumped = false

    /// Whether the child exited with status 0 in time.
    package var succeeded: Bool { termination == .exited(0) && !timedOut }
}

/// The first bytes a stream carried, and how many more were discarded.
package struct CapturedOutput: Sendable, Hashable {
    package var bytes: [UInt8] = []
    package var discardedCount = 0

    mutating func append(_ chunk: UnsafeRawBufferPointer, limit: Int) {
        let room = max(0, limit - bytes.count)
        bytes += chunk.prefix(room)
        discardedCount += max(0, chunk.count - room)
    }

    /// The bytes for a log line: escaped, trimmed, with a note when some were discarded.
    var logText: String {
        var trimmed = bytes[...]
        while let last = trimmed.last, last == 0x0A || last == 0x0D { trimmed = trimmed.dropLast() }
        // Escaped, so a process cannot forge log lines with newlines or terminal escapes.
        var text = FactValue.escaped(Array(trimmed))
        if discardedCount > 0 { text += " … (\(discardedCount) more bytes)" }
        return text
    }
}
