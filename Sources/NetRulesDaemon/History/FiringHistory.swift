@preconcurrency import Glibc
import NetRulesActions
import NetRulesCore
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
/// The file is not fsynced: it is what `netrules history` shows, not the firing's durability
/// record (that is `state.json`). It may be truncated or edited: reading skips lines that are not
/// entries, ignores lines longer than `maximumLineLength`, and reads at most the last
/// `maximumReadLength` bytes.
///
/// Not thread-safe: the daemon actor owns it.
package struct FiringHistory {
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
    private var linesInFile = 0
    private var descriptor: FileDescriptor?
    private let logger: Logger
    /// Whether a write failed since the last success, so a full disk is logged once, not per firing.
    private var failing = false

    /// Loads the history kept in `directory` and rewrites its file with the newest `limit` entries.
    /// - Parameters:
    ///   - directory: the state directory.
    ///   - limit: how many firings to keep (at least 1).
    ///   - logger: the parent logger; the history logs as `netrules.history`, a file that cannot be
    ///     written as an error (once until a write succeeds again).
    package init(directory: String, limit: Int, logger: Logger = .disabled) {
        path = directory + "/" + Self.fileName
        self.limit = max(1, limit)
        self.logger = logger.child("netrules.history")
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

    private mutating func append(_ entry: HistoryEntry) {
        let line = Array((entry.document.compact + "\n").utf8)
        guard line.count <= Self.maximumLineLength else { return }
        if linesInFile >= limit + max(limit / 4, 16) {
            compact()
            return
        }
        do {
            let descriptor = try openForAppending()
            try descriptor.withFileDescriptor { fd throws(SystemCallError) in
                var offset = 0
                while offset < line.count {
                    offset += try line[offset...].withUnsafeBytes { sys_write(fd, $0) }
                        .get(call: "write")
                }
            }
            linesInFile += 1
            failing = false
        } catch {
            report("cannot append to the history file '\(path)': \(error)")
            // A partial line may be there now: the next write starts over with a whole file.
            descriptor?.closeDiscardingError()
            descriptor = nil
            linesInFile = Int.max / 2
        }
    }

    private mutating func openForAppending() throws(SystemCallError) -> FileDescriptor {
        if let descriptor { return descriptor }
        let flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW
        let opened = FileDescriptor(taking: try sys_open(path, flags, 0o600).get(call: "open"))
        descriptor = opened
        return opened
    }

    /// Rewrites the file with the entries in memory, one line each.
    private mutating func compact() {
        descriptor?.closeDiscardingError()
        descriptor = nil
        var bytes: [UInt8] = []
        var lines = 0
        for entry in entries {
            let line = Array((entry.document.compact + "\n").utf8)
            guard line.count <= Self.maximumLineLength else { continue }
            bytes += line
            lines += 1
        }
        do {
            try AtomicFile.replace(path, with: bytes, mode: 0o600, sync: false)
            linesInFile = lines
            failing = false
        } catch {
            report("cannot rewrite the history file '\(path)': \(error)")
            linesInFile = Int.max / 2
        }
    }

    private mutating func report(_ message: String) {
        if !failing { logger.error(message) }
        failing = true
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
        guard case .success(let fd) = sys_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0) else { return contents }
        let file = FileDescriptor(taking: fd)
        defer { file.closeDiscardingError() }
        contents.exists = true
        // Dropping is right: fstat(2) on a descriptor just opened fails only with EIO-like trouble, and an unreadable
        // history reads as empty (the contract above: history is for display, never a reason to stop).
        guard let info = try? file.withFileDescriptor({ sys_fstat($0) }).get(),
            (info.st_mode & S_IFMT) == S_IFREG
        else { return contents }
        let size = Int(info.st_size)
        let start = max(0, size - maximumReadLength)
        var bytes = [UInt8](repeating: 0, count: size - start)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                // Dropping is right: a read error (EIO) ends the read early: the history shows the entries read so far,
                // and its next compaction rewrites the file from memory.
                (try? file.withFileDescriptor {
                    sys_pread($0, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), off_t(start + filled))
                }.get()) ?? 0
            }
            guard count > 0 else { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        // Reading from the middle: the first line is only the end of one.
        if start > 0, !lines.isEmpty { lines.removeFirst() }
        var positions: [String: Int] = [:]
        for line in lines {
            // Dropping is right: a line that is not an entry is counted in skippedLines, which netrules history
            // reports.
            guard line.count <= maximumLineLength, let document = try? JSONValue.parse(Array(line)),
                let entry = HistoryEntry(document: document)
            else {
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
