import NetRulesCore
import NetRulesSystem
import Synchronization

/// Removes delivered entries from the outbox in groups: the removals asked for while one group is
/// being written go together in the next, with one fsync of the directory for all of them
/// (a group commit), so a burst of deliveries is not one directory fsync each.
///
/// A removal returns only once its group's fsync is done, or has failed. One job at a time runs
/// on `BlockingPool.shared`, so the removals never take more than one of its threads. Thread-safe:
/// the groups sit behind a `Mutex`.
final class OutboxRemovals: Sendable {
    private struct Request {
        var entry: OutboxEntry
        var continuation: CheckedContinuation<ActionError?, Never>
    }

    private struct State {
        var queued: [Request] = []
        var writing = false
        /// How many groups were written, for tests and measurements.
        var groups = 0
    }

    let outbox: Outbox
    /// The event loop the task that writes the groups runs on.
    private let loop: ThreadExecutor
    private let state = Mutex(State())

    init(outbox: Outbox, loop: ThreadExecutor) {
        self.outbox = outbox
        self.loop = loop
    }

    /// How many groups (directory fsyncs) the removals took so far.
    var groups: Int { state.withLock { $0.groups } }

    /// Deletes `entry`'s file, durably.
    /// - Returns: why it could not be removed, or nil.
    func remove(_ entry: OutboxEntry) async -> ActionError? {
        await withCheckedContinuation { continuation in
            let leads = state.withLock { state in
                state.queued.append(Request(entry: entry, continuation: continuation))
                defer { state.writing = true }
                return !state.writing
            }
            if leads { Task(executorPreference: loop) { await self.writeGroups() } }
        }
    }

    /// Writes the queued removals, group after group, until none is queued.
    private func writeGroups() async {
        while true {
            let group: [Request] = state.withLock { state in
                let group = state.queued
                state.queued = []
                if group.isEmpty { state.writing = false } else { state.groups += 1 }
                return group
            }
            if group.isEmpty { return }
            let (outbox, entries) = (self.outbox, group.map(\.entry))
            let errors = await BlockingPool.shared.run { outbox.remove(entries) }
            for request in group { request.continuation.resume(returning: errors[request.entry.idempotencyKey]) }
        }
    }
}
