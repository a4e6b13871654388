import FoundationEssentials
@preconcurrency import Glibc
import NetRulesSystem

/// The on-disk queue of webhook deliveries: one file per pending delivery.
///
/// `<state-dir>/outbox/<idempotency-key>.json` is written atomically and durably (fsync of the file
/// and of the directory) before the first attempt, rewritten after each failed attempt, and
/// removed after a 2xx. A final failure (a 3xx or 4xx other than 408/429, or the last attempt
/// spent) moves the file to `outbox/failed/`, where the user can read what was not delivered;
/// nothing there is retried or removed automatically. Blocking: call it off the cooperative pool.
struct Outbox: Sendable {
    let directory: String
    var failedDirectory: String { directory + "/failed" }

    init(stateDirectory: String) {
        directory = (stateDirectory.hasSuffix("/") ? String(stateDirectory.dropLast()) : stateDirectory) + "/outbox"
    }

    func path(of entry: OutboxEntry) -> String { directory + "/" + entry.fileName }

    /// Writes (or rewrites) `entry` durably.
    func store(_ entry: OutboxEntry) throws(ActionError) {
        let bytes: [UInt8]
        do {
            bytes = Array(try JSONEncoder().encode(entry))
        } catch {
            throw ActionError(.ioFailed, "cannot encode the outbox entry", cause: error)
        }
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
            try AtomicFile.syncDirectory(failedDirectory)
            try AtomicFile.syncDirectory(directory)
        } catch {
            throw ActionError(.ioFailed, "cannot move the outbox entry '\(entry.fileName)' to failed/", cause: error)
        }
    }

    /// Every pending entry, oldest first, and a message for each file that could not be read
    /// (such a file is moved to `failed/` so it does not block the queue forever).
    func pending() -> (entries: [OutboxEntry], problems: [String]) {
        guard case .success(let names) = sys_listDirectory(directory) else { return ([], []) }
        var entries: [OutboxEntry] = []
        var problems: [String] = []
        // Names starting with "." are AtomicFile's temporaries, possibly left by a kill; skip them.
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = directory + "/" + name
            do {
                entries.append(try JSONDecoder().decode(OutboxEntry.self, from: Data(try Self.read(path))))
            } catch {
                problems.append("unreadable outbox entry '\(name)' moved to failed/: \(error)")
                _ = try? AtomicFile.makeDirectories(failedDirectory)
                _ = sys_rename(path, failedDirectory + "/" + name)
            }
        }
        return (entries.sorted { ($0.enqueuedAt, $0.idempotencyKey) < ($1.enqueuedAt, $1.idempotencyKey) }, problems)
    }

    private static func read(_ path: String) throws(SystemCallError) -> [UInt8] {
        let fd = try sys_open(path, O_RDONLY | O_CLOEXEC).get(call: "open")
        let file = FileDescriptor(taking: fd)
        defer { try? file.close() }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try buffer.withUnsafeMutableBytes { sys_read(fd, $0) }.get(call: "read")
            if count == 0 { return out }
            out += buffer[..<count]
        }
    }
}
