@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// The on-disk queue of webhook deliveries: one file per pending delivery.
///
/// `<state-dir>/outbox/<idempotency-key>.json` is written atomically and durably (fsync of the file
/// and of the directory) before the first attempt, rewritten after each failed attempt, and
/// removed after a 2xx. A final failure (a 3xx or 4xx other than 408/429, or the last attempt
/// spent), or a drop to keep the outbox within its limits, moves the file to `outbox/failed/` with
/// the reason in its `failure` field, where the user can read what was not delivered; nothing there
/// is retried, and `rotateFailed` deletes the oldest beyond a count or an age. Blocking: call it off
/// the cooperative pool.
struct Outbox: Sendable {
    let directory: String
    var failedDirectory: String { directory + "/failed" }
    /// What `failed/` holds, shared by every copy of this outbox (see `rotateFailed`).
    let failedIndex = FailedIndex()

    init(stateDirectory: String) {
        directory = (stateDirectory.hasSuffix("/") ? String(stateDirectory.dropLast()) : stateDirectory) + "/outbox"
    }

    func path(of entry: OutboxEntry) -> String { directory + "/" + entry.fileName }

    /// The file's contents for `entry` (`OutboxEntry+Coding.swift`).
    static func encode(_ entry: OutboxEntry) -> [UInt8] {
        entry.document.compactBytes
    }

    /// Writes (or rewrites) `entry` durably.
    func store(_ entry: OutboxEntry) throws(ActionError) {
        try store(entry, bytes: Self.encode(entry))
    }

    /// Writes (or rewrites) `entry` durably, as `bytes` (its `encode`d form).
    func store(_ entry: OutboxEntry, bytes: [UInt8]) throws(ActionError) {
        do {
            try AtomicFile.replace(path(of: entry), with: bytes, mode: 0o600)
        } catch {
            throw ActionError(.ioFailed, "cannot write the outbox entry '\(entry.fileName)'", cause: error)
        }
    }

    /// Whether a delivery with this key is pending or has failed for good (so must not be enqueued again).
    func contains(key: String) -> Bool {
        let name = key + ".json"
        for candidate in [directory + "/" + name, failedDirectory + "/" + name] {
            if case .success = sys_access(candidate, F_OK) { return true }
        }
        return false
    }

    /// Deletes delivered entries, then fsyncs the directory once for all of them.
    /// - Returns: why each entry that could not be removed was not, by idempotency key; every one
    ///   when the directory's fsync failed.
    func remove(_ entries: [OutboxEntry]) -> [String: ActionError] {
        var errors: [String: ActionError] = [:]
        for entry in entries {
            switch sys_unlink(path(of: entry)) {
            case .success, .failure(.noSuchFileOrDirectory): break
            case .failure(let errno):
                errors[entry.idempotencyKey] = ActionError(
                    .ioFailed, "cannot remove the outbox entry '\(entry.fileName)'",
                    cause: SystemCallError(call: "unlink", errno: errno))
            }
        }
        do {
            try AtomicFile.syncDirectory(directory)
        } catch {
            for entry in entries where errors[entry.idempotencyKey] == nil {
                errors[entry.idempotencyKey] = ActionError(
                    .ioFailed, "cannot remove the outbox entry '\(entry.fileName)'", cause: error)
            }
        }
        return errors
    }

    /// Deletes a delivered entry.
    func remove(_ entry: OutboxEntry) throws(ActionError) {
        do {
            switch sys_unlink(path(of: entry)) {
            case .success, .failure(.noSuchFileOrDirectory): break
            case .failure(let errno): throw SystemCallError(call: "unlink", errno: errno)
            }
            try AtomicFile.syncDirectory(directory)
        } catch {
            throw ActionError(.ioFailed, "cannot remove the outbox entry '\(entry.fileName)'", cause: error)
        }
    }

    /// Moves an entry that will never be delivered to `failed/`, with its last state.
    func moveToFailed(_ entry: OutboxEntry) throws(ActionError) {
        do {
            try AtomicFile.makeDirectories(failedDirectory)
            _ = try sys_rename(path(of: entry), failedDirectory + "/" + entry.fileName).get(call: "rename")
            failedIndex.recordMove(name: entry.fileName, at: sys_realtimeNanoseconds())
            try AtomicFile.syncDirectory(failedDirectory)
            try AtomicFile.syncDirectory(directory)
        } catch {
            throw ActionError(.ioFailed, "cannot move the outbox entry '\(entry.fileName)' to failed/", cause: error)
        }
    }

    /// Moves the pending entry with `key` to `failed/`, its last state as read from its file and
    /// `reason` as its `failure`: the outbox dropped it to stay within its limits.
    ///
    /// Nothing is fsynced (a drop is no promise to keep): call `syncDirectories()` after a batch, or
    /// let the `store` that follows sync the outbox's directory.
    func drop(key: String, reason: String) throws(ActionError) {
        let name = key + ".json"
        let path = directory + "/" + name
        do {
            // An entry that does not decode is moved to failed/ as it is (the else branch), without
            // a failure field it could not hold.
            if var entry = try? OutboxEntry(decoding: try Self.read(path)) {
                entry.failure = reason
                // The copy in failed/ first: a crash in between leaves the entry pending, not lost.
                try AtomicFile.replace(failedDirectory + "/" + name, with: Self.encode(entry), mode: 0o600, sync: false)
                _ = try sys_unlink(path).get(call: "unlink")
            } else {
                try AtomicFile.makeDirectories(failedDirectory)
                _ = try sys_rename(path, failedDirectory + "/" + name).get(call: "rename")
            }
            failedIndex.recordMove(name: name, at: sys_realtimeNanoseconds())
        } catch {
            throw ActionError(.ioFailed, "cannot move the outbox entry '\(name)' to failed/", cause: error)
        }
    }

    /// Makes the drops since the last sync durable: fsyncs `failed/` and the outbox's directory.
    func syncDirectories() throws(ActionError) {
        do {
            try AtomicFile.syncDirectory(failedDirectory)
            try AtomicFile.syncDirectory(directory)
        } catch {
            throw ActionError(.ioFailed, "cannot sync the outbox's directories", cause: error)
        }
    }

    /// Every pending entry with its size in bytes, oldest first, and a message for each file that
    /// could not be read (such a file is moved to `failed/` so it does not block the queue forever).
    func pending() -> (entries: [(entry: OutboxEntry, bytes: Int)], problems: [String]) {
        guard case .success(let names) = sys_listDirectory(directory) else { return ([], []) }
        var entries: [(entry: OutboxEntry, bytes: Int)] = []
        var problems: [String] = []
        // Names starting with "." are AtomicFile's temporaries, possibly left by a kill; skip them.
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = directory + "/" + name
            do {
                let bytes = try Self.read(path)
                entries.append((try OutboxEntry(decoding: bytes), bytes.count))
            } catch {
                do {
                    try AtomicFile.makeDirectories(failedDirectory)
                    _ = try sys_rename(path, failedDirectory + "/" + name).get(call: "rename")
                    failedIndex.recordMove(name: name, at: sys_realtimeNanoseconds())
                    problems.append("unreadable outbox entry '\(name)' moved to failed/: \(error)")
                } catch let moveError {
                    problems.append(
                        "unreadable outbox entry '\(name)' (\(error)) could not be moved to failed/: \(moveError)")
                }
            }
        }
        entries.sort { ($0.entry.enqueuedAt, $0.entry.idempotencyKey) < ($1.entry.enqueuedAt, $1.entry.idempotencyKey) }
        return (entries, problems)
    }

    /// How many files `failed/` holds.
    func failedCount() -> Int {
        guard case .success(let names) = sys_listDirectory(failedDirectory) else { return 0 }
        return names.count(where: { $0.hasSuffix(".json") && !$0.hasPrefix(".") })
    }

    /// What `rotateFailed` deleted.
    struct Rotation: Sendable, Hashable {
        /// Files older than the age limit.
        var byAge = 0
        /// The oldest files beyond the count limit.
        var byCount = 0
    }

    /// Deletes the files in `failed/` older than `maximumAge` (by modification time: when the
    /// entry failed), then the oldest beyond the newest `keeping`; `failedIndex` says which.
    /// - Parameter now: nanoseconds since the epoch.
    func rotateFailed(keeping: Int, maximumAge: Duration, now: Int64 = sys_realtimeNanoseconds()) -> Rotation {
        let (seconds, attoseconds) = maximumAge.components
        let age =
            seconds > Int64.max / 1_000_000_000 ? Int64.max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let cutoff = now < Int64.min + age ? Int64.min : now - age
        let victims = failedIndex.takeVictims(keeping: keeping, olderThan: cutoff) { scanFailed() }
        var rotation = Rotation()
        for victim in victims {
            // A file a person deleted meanwhile is not counted.
            guard case .success = sys_unlink(failedDirectory + "/" + victim.name) else { continue }
            if victim.expired { rotation.byAge += 1 } else { rotation.byCount += 1 }
        }
        return rotation
    }

    /// The files of `failed/` and their modification times.
    private func scanFailed() -> [FailedIndex.File] {
        guard case .success(let names) = sys_listDirectory(failedDirectory) else { return [] }
        return names.compactMap { name in
            guard name.hasSuffix(".json"), !name.hasPrefix("."),
                case .success(let info) = sys_stat(failedDirectory + "/" + name)
            else { return nil }
            return FailedIndex.File(
                name: name, modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
        }
    }

    private static func read(_ path: String) throws(SystemCallError) -> [UInt8] {
        let fd = try sys_open(path, O_RDONLY | O_CLOEXEC).get(call: "open")
        let file = FileDescriptor(taking: fd)
        defer { file.closeDiscardingError() }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try buffer.withUnsafeMutableBytes { sys_read(fd, $0) }.get(call: "read")
            if count == 0 { return out }
            out += buffer[..<count]
        }
    }
}
