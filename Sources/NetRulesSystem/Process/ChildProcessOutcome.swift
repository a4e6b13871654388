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

        /// Decodes a waitpid(2) status (WIFEXITED and friends are macros Swift does not import;
        /// this is their glibc layout).
        package init(waitStatus status: CInt) {
            self = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
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

    /// The status a shell would report: the exit status, or 128 + the signal that ended it.
    package var shellStatus: Int32 {
        switch termination {
        case .exited(let status): status
        case .signaled(let signal): 128 + signal
        }
    }
}

/// The first bytes a stream carried, and how many more were discarded.
package struct CapturedOutput: Sendable, Hashable {
    package var bytes: [UInt8] = []
    package var discardedCount = 0

    /// Output already captured: `bytes` kept, `discardedCount` more discarded.
    package init(bytes: [UInt8] = [], discardedCount: Int = 0) {
        self.bytes = bytes
        self.discardedCount = discardedCount
    }

    /// Appends `chunk`, keeping at most `limit` bytes in all and counting the rest as discarded.
    package mutating func append(_ chunk: UnsafeRawBufferPointer, limit: Int) {
        let room = max(0, limit - bytes.count)
        bytes += chunk.prefix(room)
        discardedCount += max(0, chunk.count - room)
    }
}
