@preconcurrency import Glibc
import NetRulesCore
import NetRulesDaemonCore
import NetRulesSystem

/// Writes each log record as one line to standard error.
///
/// Every line is handed to the kernel in a single `write(2)`, so lines from concurrent tasks never
/// interleave mid-line (a pipe or the journal's stream socket takes such a write whole).
///
/// When systemd connects standard error to the journal it sets `JOURNAL_STREAM` to the
/// `DEVICE:INODE` of that stream; the sink then drops its own timestamp and prefixes the syslog
/// priority (`<5>`), as sd-daemon(3) describes. The variable is trusted only when it matches what
/// fd 2 really is (systemd.exec(5) asks for that check), so a child started from a journald unit
/// whose stderr was redirected to a file still gets timestamps.
///
/// Safe to call from any task or thread; it holds no state besides the format.
package struct StandardErrorLogSink: LogSink {
    /// The line format this sink chose for its stream.
    package let format: LogLineFormat
    private let descriptor: CInt
    private let now: @Sendable () -> WallTime

    /// A sink for the process's standard error.
    ///
    /// - Parameter environment: The process environment, read for `JOURNAL_STREAM`.
    package init(environment: [String: String]) {
        self.init(descriptor: STDERR_FILENO, environment: environment, now: { WallClock.now() })
    }

    /// A sink for another descriptor; tests write to a pipe. The caller keeps `descriptor` open
    /// for as long as the sink is used.
    init(descriptor: CInt, environment: [String: String], now: @escaping @Sendable () -> WallTime) {
        self.descriptor = descriptor
        self.now = now
        let journal = Self.isJournalStream(environment["JOURNAL_STREAM"], descriptor: descriptor)
        format = journal ? .journal : .plain
    }

    /// Whether `journalStream` (the value of `JOURNAL_STREAM`, `DEVICE:INODE` in decimal) names
    /// the file `descriptor` is open on.
    ///
    /// - Parameters:
    ///   - journalStream: The variable's value, nil when unset.
    ///   - descriptor: The descriptor to compare with, normally 2.
    /// - Returns: True only when the value parses and its device and inode match fstat(2)'s.
    package static func isJournalStream(_ journalStream: String?, descriptor: CInt = STDERR_FILENO) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        guard case .success(let status) = sys_fstat(descriptor) else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    package func write(_ record: Logger.Record) {
        var bytes = Array(format.render(record, at: now()).utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            // A short write happens only for lines past the pipe's atomic size or on a full
            // non-blocking stream; the rest is written after it rather than lost.
            while offset < buffer.count {
                guard
                    case .success(let written) = sys_write(
                        descriptor, UnsafeRawBufferPointer(rebasing: buffer[offset...])), written > 0
                else {
                    // Nowhere to report a failure to log: EAGAIN, EPIPE or a closed stderr drops the line.
                    return
                }
                offset += written
            }
        }
    }
}
