@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// The append-only half of the daemon's persisted state: numbered segments `journal.<n>.jsonl`
/// beside `state.json`.
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
/// A compaction starts a new segment (`rotate()`) on the loop, so appends go on at once, and
/// `SnapshotWriter` writes `state.json` and deletes the segments before the new one on the pool.
/// A reader takes `state.json`, then the segments it does not cover in order: the old single
/// `journal.jsonl` (segment 0) first, then `journal.<n>.jsonl` by number.
///
/// Power loss can lose the lines appended since the last completed fdatasync (a few milliseconds
/// after an event), and the lines of a segment whose directory entry is not yet durable (the
/// snapshot that rotated to it fsyncs the directory); design note 0004 says what that means for the
/// firings.
///
/// A write that fails (a full disk) is retried into the same segment: the failed append leaves the
/// file as it was (`AppendLog`), and a rotation starts a new segment only once this one holds a
/// line, so failures never leave a trail of empty segments. A failed fdatasync may have lost lines
/// already appended, so the next append fails with its error, and the daemon writes a snapshot
/// instead (which holds them). Each is reported to `failures`, once per streak.
final class StateJournal {
    /// The one journal file of netrules before segments: read as segment 0, the oldest.
    static let fileName = "journal.jsonl"
    /// A journal line longer than this is not read back (the state of thousands of rules would be
    /// less; a longer line is damage).
    static let maximumLineBytes = 16 * 1024 * 1024

    let directory: String
    /// The segment appended to.
    private(set) var segment: Int
    private var log: AppendLog
    /// The lines of this segment: those it held when opened and those appended since.
    private(set) var lineCount: Int
    private var flusher: Flusher
    private let failures: PersistenceFailures

    /// The file of segment `number` in `directory`: `journal.jsonl` for 0.
    static func path(ofSegment number: Int, in directory: String) -> String {
        directory + "/" + (number == 0 ? fileName : "journal.\(number).jsonl")
    }

    /// The segment a file name names: 0 for `journal.jsonl`, n for `journal.<n>.jsonl` (n ≥ 1 in
    /// decimal digits without a leading zero), nil for any other name.
    static func segment(named name: String) -> Int? {
        if name == fileName { return 0 }
        guard name.hasPrefix("journal."), name.hasSuffix(".jsonl") else { return nil }
        let digits = name.utf8.dropFirst("journal.".utf8.count).dropLast(".jsonl".utf8.count)
        guard let first = digits.first, first != UInt8(ascii: "0"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let number = Int(String(decoding: digits, as: UTF8.self))
        else { return nil }
        return number
    }

    /// The segments in `directory`, oldest first; a file named otherwise is not one.
    /// - Throws: `SystemCallError` when the directory cannot be listed.
    static func segments(in directory: String) throws(SystemCallError) -> [Int] {
        try sys_listDirectory(directory).get(call: "opendir").compactMap(segment(named:)).sorted()
    }

    /// Opens (creating, mode 0600) segment `segment` in `directory` for appending.
    /// - Parameters:
    ///   - directory: the state directory.
    ///   - segment: the segment's number (at least 1).
    ///   - lines: how many lines it already holds (the caller has just read them to restore the
    ///     state, so they are not read again here).
    ///   - failures: hears of every append and fdatasync, failed or not.
    /// - Throws: `SystemCallError` when it cannot be opened.
    init(
        directory: String, segment: Int, lines: Int,
        failures: PersistenceFailures = PersistenceFailures(directory: "", logger: .disabled)
    ) throws(SystemCallError) {
        self.directory = directory
        self.segment = segment
        self.failures = failures
        log = AppendLog(path: Self.path(ofSegment: segment, in: directory))
        flusher = Flusher(descriptor: try log.open(), path: log.path, failures: failures)
        lineCount = lines
    }

    deinit {
        // The flusher flushes once more, then closes the descriptor itself.
        flusher.stop()
    }

    /// The file appended to.
    var path: String { log.path }

    /// Appends one line (a newline is added) with one write(2); `requestFlush()` makes it durable.
    /// - Throws: `SystemCallError` when the write fails (the file is then as it was), or the
    ///   fdatasync error when a flush failed since the last append (nothing is written then).
    func append(_ line: [UInt8]) throws(SystemCallError) {
        if let failed = flusher.takeFailure() {
            failures.failed(.journal, "cannot append to '\(path)' after its flush failed", error: failed)
            throw failed
        }
        do {
            try log.append(line)
        } catch {
            failures.failed(.journal, "cannot append to '\(path)'", error: error)
            throw error
        }
        lineCount += 1
        failures.succeeded(.journal)
    }

    /// Asks for what was appended to be flushed to the disk (fdatasync, on the pool), without waiting.
    func requestFlush() {
        flusher.request()
    }

    /// Continues in segment `segment + 1`: appends go there from now on, and the old segment is
    /// flushed once more and closed on the pool. A snapshot of the state as it is now covers every
    /// segment before the new one.
    /// - Returns: the new segment's number.
    /// - Throws: `SystemCallError` when the new segment cannot be opened (appends then stay in the
    ///   old one).
    func rotate() throws(SystemCallError) -> Int {
        let next = segment + 1
        let opened = AppendLog(path: Self.path(ofSegment: next, in: directory))
        let descriptor: FileDescriptor
        do {
            descriptor = try opened.open()
        } catch {
            failures.failed(.journal, "cannot create the journal segment '\(opened.path)'", error: error)
            throw error
        }
        // A flush failure of the old segment is the snapshot's to cover, which follows a rotation.
        _ = flusher.takeFailure()
        flusher.stop()
        (log, segment, lineCount) = (opened, next, 0)
        flusher = Flusher(descriptor: descriptor, path: opened.path, failures: failures)
        return next
    }

    /// Waits until every line appended so far is on the disk (for tests).
    func flushNow() {
        flusher.flushNow()
    }

    /// Waits, off the loop, until every line appended so far is on the disk (for shutdown).
    nonisolated(nonsending) func flushed() async {
        let flusher = self.flusher
        await BlockingPool.shared.run { flusher.flushNow() }
    }

    /// The journal's complete lines, oldest first. A last line without its newline (a write cut off
    /// by a crash) is left out, and so is a line longer than `maximumLineBytes`; no file is no lines.
    /// - Throws: `SystemCallError` when the file is there and cannot be read.
    static func readLines(at path: String) throws(SystemCallError) -> [[UInt8]] {
        try AppendLog.read(path, maximumLineLength: maximumLineBytes, maximumReadLength: maximumLineBytes * 4)?
            .lines ?? []
    }

    /// Runs fdatasync(2) for the journal on the blocking pool: one job at a time, which flushes
    /// until no request came in meanwhile, however many appends asked (no thread of its own, and
    /// no wake-up while idle). It owns the descriptor's end: after `stop()` the last job flushes
    /// once more and closes it. Each result goes to `failures`; a failure is also kept for the next
    /// append (`takeFailure()`).
    private final class Flusher: Sendable {
        private struct State {
            /// A flush was asked for since the running job last started one.
            var requested = false
            /// A job is queued or flushing.
            var running = false
            var stopping = false
            /// The descriptor is closed: nothing flushes any more.
            var closed = false
            /// The last fdatasync failed, and no append has heard of it yet.
            var failure: SystemCallError?
        }

        private let descriptor: FileDescriptor
        private let path: String
        private let failures: PersistenceFailures
        private let state = Mutex(State())

        init(descriptor: FileDescriptor, path: String, failures: PersistenceFailures) {
            self.descriptor = descriptor
            self.path = path
            self.failures = failures
        }

        func request() { schedule { $0.requested = true } }

        /// The failure of the last fdatasync, once: the lines before it may not be on the disk.
        func takeFailure() -> SystemCallError? {
            state.withLock { $0.failure.take() }
        }

        /// One fdatasync now, on the caller's thread; nothing once the descriptor is closed.
        func flushNow() {
            let result: Result<CInt, Errno>
            do {
                result = try descriptor.withFileDescriptor { fd throws(SystemCallError) in sys_fdatasync(fd) }
            } catch {
                // Closed: it was flushed before it closed.
                return
            }
            switch result {
            case .success:
                failures.succeeded(.journalFlush)
            case .failure(let errno):
                let error = SystemCallError(call: "fdatasync", errno: errno)
                state.withLock { $0.failure = error }
                failures.failed(.journalFlush, "cannot flush '\(path)' to the disk", error: error)
            }
        }

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
                    if close { descriptor.closeDiscardingError() }
                    return
                }
                flushNow()
            }
        }
    }
}
