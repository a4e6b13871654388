@preconcurrency import Glibc
import NetRulesSystem
import Synchronization

/// The append-only half of the daemon's persisted state: `journal.jsonl` beside `state.json`.
///
/// Between an event and its action the daemon only appends one line, with one write(2), holding
/// what changed (the rules whose state changed and the in-flight firings); the page cache keeps it
/// through a SIGKILL of the daemon. A job on the blocking pool then makes it durable with
/// fdatasync(2), batching the appends that arrive while a flush runs, so no disk flush sits between an event
/// and its action: the daemon asks for the flush once the event's actions have started
/// (`requestFlush()`), so the flush does not compete with them for the CPU either. `state.json`
/// is rewritten (and fsynced) only when the journal is compacted: at start, when it has grown past
/// `DaemonCore.compactionLines`, and at shutdown — never on the hot path.
///
/// Power loss can lose the lines appended since the last completed fdatasync (a few milliseconds
/// after an event); design note 0004 says what that means for the firings.
final class StateJournal {
    static let fileName = "journal.jsonl"
    /// A journal line longer than this is not read back (the state of thousands of rules would be
    /// less; a longer line is damage).
    static let maximumLineBytes = 16 * 1024 * 1024

    let path: String
    private let fd: CInt
    /// Lines appended since the last compaction.
    private(set) var lineCount: Int
    private let flusher: Flusher

    /// Opens (creating, mode 0600) the journal in `directory` for appending.
    /// - Parameters:
    ///   - directory: the state directory.
    ///   - lines: how many lines it already holds (the caller has just read them to restore the
    ///     state, so they are not read again here).
    /// - Throws: `SystemCallError` when it cannot be opened.
    init(directory: String, lines: Int) throws(SystemCallError) {
        path = directory + "/" + Self.fileName
        fd = try sys_open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600).get(call: "open")
        lineCount = lines
        flusher = try Flusher(fd: fd)
    }

    deinit {
        // The flusher flushes once more, then closes the descriptor itself.
        flusher.stop()
    }

    /// Appends one line (a newline is added) with one write(2); `requestFlush()` makes it durable.
    /// - Throws: `SystemCallError` when the write fails or is short.
    func append(_ line: [UInt8]) throws(SystemCallError) {
        let bytes = line + [UInt8(ascii: "\n")]
        let written = try bytes.withUnsafeBytes { buffer in
            sys_write(fd, buffer)
        }.get(call: "write")
        guard written == bytes.count else {
            throw SystemCallError(call: "write", errno: Errno(rawValue: EIO))
        }
        lineCount += 1
    }

    /// Asks for what was appended to be flushed to the disk (fdatasync, on the pool), without waiting.
    func requestFlush() {
        flusher.request()
    }

    /// Empties the journal after its lines were folded into a durable `state.json`.
    func truncate() throws(SystemCallError) {
        _ = try sys_ftruncate(fd, 0).get(call: "ftruncate")
        lineCount = 0
        flusher.request()
    }

    /// Waits until every line appended so far is on the disk (for shutdown and tests).
    func flushNow() {
        _ = sys_fdatasync(fd)
    }

    /// The journal's complete lines, oldest first. A last line without its newline (a write cut off
    /// by a crash) is left out, and so is a line longer than `maximumLineBytes`; no file is no lines.
    /// - Throws: `SystemCallError` when the file is there and cannot be read.
    static func readLines(at path: String) throws(SystemCallError) -> [[UInt8]] {
        guard let bytes = try FileContents.read(path, limit: maximumLineBytes * 4) else { return [] }
        var lines: [[UInt8]] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            if index - start <= maximumLineBytes, index > start { lines.append(Array(bytes[start..<index])) }
            start = index + 1
        }
        return lines
    }

    /// Runs fdatasync(2) for the journal on the blocking pool: one job at a time, which flushes
    /// until no request came in meanwhile, however many appends asked (no thread of its own, and
    /// no wake-up while idle). It owns the descriptor's end: after `stop()` the last job flushes
    /// once more and closes it, so no flush can reach a descriptor number the process has reused.
    private final class Flusher: Sendable {
        private struct State {
            /// A flush was asked for since the running job last started one.
            var requested = false
            /// A job is queued or flushing.
            var running = false
            var stopping = false
            /// The descriptor is closed: nothing flushes any more.
            var closed = false
        }

        private let fd: CInt
        private let state = Mutex(State())

        init(fd: CInt) throws(SystemCallError) {
            self.fd = fd
        }

        func request() { schedule { $0.requested = true } }

        func stop() {
            schedule { state in
                state.requested = true
                state.stopping = true
            }
        }

        private func schedule(_ change: (inout State) -> Void) {
            let start = state.withLock { state -> Bool in
                change(&state)
                guard !state.running, !state.closed else { return false }
                state.running = true
                return true
            }
            if start { BlockingPool.shared.spawn { [self] in flush() } }
        }

        /// The job: flushes while requests keep coming, then closes the descriptor if stopping.
        private func flush() {
            while true {
                let (again, close) = state.withLock { state -> (Bool, Bool) in
                    if state.requested {
                        state.requested = false
                        return (true, false)
                    }
                    state.running = false
                    state.closed = state.stopping
                    return (false, state.stopping)
                }
                guard again else {
                    if close { _ = sys_close(fd) }
                    return
                }
                _ = sys_fdatasync(fd)
            }
        }
    }
}
