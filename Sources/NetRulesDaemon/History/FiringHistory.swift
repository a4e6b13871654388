@preconcurrency import Glibc
import NetRulesActions
import NetRulesCore
import NetRulesDaemonCore
import NetRulesSystem

/// The daemon's bounded record of recent firings, in memory and in `<state-dir>/history.jsonl`.
///
/// The file holds one `HistoryEntry` document per line, appended with write(2) as things happen: a
/// firing when it is handed to the runner, then again (the whole entry, same `id`) each time one
/// of its actions reports, or a webhook the outbox delivered later finishes. A reader keeps the
/// last line of each id, in the order the ids first appear. When the file holds more than
/// `limit + limit / 4` lines (at least 16 more than `limit`), it is rewritten with the newest
/// `limit` entries (write to a temporary file, rename), and it is rewritten so once at start, which
/// also ends a line a kill cut short and resets the mode to 0600.
///
/// The file is written on the blocking pool, in order (`HistoryFileWriter`): the daemon's loop
/// only queues an entry or a compaction. It is not fsynced: it is what `netrules history` shows,
/// not the firing's durability record (that is `state.json`). It may be truncated or edited: reading skips lines that are not
/// entries, ignores lines longer than `maximumLineLength`, and reads at most the last
/// `maximumReadLength` bytes.
///
/// Not thread-safe: the daemon actor owns it (it is made on the pool, where the file is read).
package struct FiringHistory: Sendable {
    package static let fileName = "history.jsonl"
    /// The longest line read back; a longer line is skipped (and never written).
    package static let maximumLineLength = 1 << 20
    /// How much of the file's end is read at most.
    package static let maximumReadLength = 32 << 20

    /// The file's path.
    package let path: String
    /// How many entries are kept.
    package let limit: Int
    /// The entries, oldest first, at most `limit`.
    package private(set) var entries: [HistoryEntry] = []
    /// Lines in the file once what is queued is written.
    private var linesInFile = 0
    private let writer: HistoryFileWriter

    /// Loads the history kept in `directory` and rewrites its file with the newest `limit` entries
    /// (blocking: it reads the file; the rewrite is queued).
    /// - Parameters:
    ///   - directory: the state directory.
    ///   - limit: how many firings to keep (at least 1).
    ///   - logger: the parent logger; the history logs as `netrules.history`, a file that cannot be
    ///     written as an error (once until a write succeeds again).
    ///   - failures: where a write that fails is reported: the daemon's, shared with its state
    ///     files (`StateFiles.failures`), so a full disk is one streak; else the history's own.
    package init(directory: String, limit: Int, logger: Logger = .disabled, failures: PersistenceFailures? = nil) {
        path = directory + "/" + Self.fileName
        writer = HistoryFileWriter(
            path: path,
            failures: failures ?? PersistenceFailures(directory: directory, logger: logger.child("netrules.history")))
        self.limit = max(1, limit)
        entries = Array(Self.read(path: path).entries.suffix(self.limit))
        compact()
    }

    /// The entry with `id`, searched from the newest (results arrive soon after their firing).
    package func entry(id: String) -> HistoryEntry? {
        entries.last { $0.id == id }
    }

    /// Adds a new entry (dropping the oldest beyond `limit`) and appends it to the file.
    package mutating func record(_ entry: HistoryEntry) {
        entries.append(entry)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
        append(entry)
    }

    /// Changes the entry with `id` and appends its new state; false when no entry has that id.
    @discardableResult
    package mutating func update(id: String, _ change: (inout HistoryEntry) -> Void) -> Bool {
        guard let index = entries.lastIndex(where: { $0.id == id }) else { return false }
        change(&entries[index])
        append(entries[index])
        return true
    }

    /// The id of the entry whose webhook has `key` as its idempotency key.
    package func id(ofDelivery key: String) -> String? {
        entries.last { $0.actions.contains { $0.idempotencyKey == key } }?.id
    }

    // MARK: - File

    /// Waits until every entry recorded so far is in the file (for shutdown and tests).
    package func written() async {
        await writer.written()
    }

    /// The entry's line without its newline; nil when the line with its newline would be longer
    /// than `maximumLineLength` (it is never written).
    static func line(_ entry: HistoryEntry) -> [UInt8]? {
        let line = entry.document.compactBytes
        return line.count < maximumLineLength ? line : nil
    }

    private mutating func append(_ entry: HistoryEntry) {
        if writer.needsRewrite || linesInFile >= limit + max(limit / 4, 16) {
            compact()
            return
        }
        writer.submit(.append(entry))
        linesInFile += 1
    }

    /// Rewrites the file with the entries in memory, one line each (queued).
    private mutating func compact() {
        writer.submit(.rewrite(entries))
        linesInFile = entries.count
    }

    // MARK: - Reading

    /// What a history file holds: its entries, oldest first (the last line of each id), and how
    /// many lines were not entries.
    package struct Contents: Sendable {
        package var entries: [HistoryEntry] = []
        package var skippedLines = 0
        /// Whether the file exists.
        package var exists = false
    }

    /// Reads a history file, skipping what is not an entry; never throws.
    package static func read(path: String) -> Contents {
        var contents = Contents()
        let read: AppendLog.Contents?
        do {
            read = try AppendLog.read(path, maximumLineLength: maximumLineLength, maximumReadLength: maximumReadLength)
        } catch {
            // A file that is there but cannot be read (a directory, EIO) is an empty history: the
            // contract above, history is for display, never a reason to stop.
            contents.exists = error.call != "open"
            return contents
        }
        guard let read else { return contents }
        contents.exists = true
        contents.skippedLines = read.overLong + (read.cutOff ? 1 : 0)
        var positions: [String: Int] = [:]
        for line in read.lines {
            // A line that is not an entry is counted in skippedLines, which netrules history
            // reports.
            guard let document = try? JSONValue.parse(line), let entry = HistoryEntry(document: document) else {
                contents.skippedLines += 1
                continue
            }
            if let position = positions[entry.id] {
                contents.entries[position] = entry
            } else {
                positions[entry.id] = contents.entries.count
                contents.entries.append(entry)
            }
        }
        return contents
    }
}
