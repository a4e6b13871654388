@preconcurrency import Glibc

/// One inotify(7) instance: watches on paths, and a blocking wait that returns the events read.
///
/// The low-level part the rule file watcher and the resolver observer share; what to watch, which
/// events matter and how to coalesce them stay with them. No polling and no timers: the wait
/// sleeps in `poll(2)` on the inotify descriptor and a `WakeEvent` (`waitReadable`).
///
/// Thread-safe in the sense of `FileDescriptor`: watches may be added from any thread, but one
/// thread at a time waits.
package final class FileWatcher: Sendable {
    /// How a wait ended.
    package enum Wait: Equatable, Sendable {
        /// Events arrived; all that were queued, in order.
        case events([InotifyEvent])
        /// The wake event was signalled.
        case woken
        /// The deadline passed with no event.
        case timedOut
    }

    private let inotify: FileDescriptor

    /// Opens an inotify instance (close-on-exec, non-blocking) with no watches.
    /// - Throws: `SystemCallError` from inotify_init1(2), for example `EMFILE` at the instance limit.
    package init() throws(SystemCallError) {
        inotify = FileDescriptor(
            taking: try sys_inotify_init1(CInt(IN_CLOEXEC | IN_NONBLOCK)).get(call: "inotify_init1"))
    }

    /// Watches `path` for the `IN_*` events in `mask` (inotify_add_watch(2)); a path watched
    /// already keeps its watch descriptor and gets the new mask.
    /// - Returns: The watch descriptor that events on `path` carry.
    /// - Throws: `SystemCallError`, for example `ENOENT` or `ENOSPC` at the watch limit.
    package func addWatch(_ path: String, mask: UInt32) throws(SystemCallError) -> CInt {
        try inotify.withFileDescriptor { fd throws(SystemCallError) in
            try sys_inotify_add_watch(fd, path, mask).get(call: "inotify_add_watch")
        }
    }

    /// Blocks until events arrive, `wake` is signalled, or `deadline` passes; call it on a
    /// dedicated thread.
    /// - Throws: `SystemCallError` from poll(2) or read(2), or `EBADF` once closed.
    package func wait(wake: WakeEvent?, deadline: ContinuousClock.Instant?) throws(SystemCallError) -> Wait {
        let outcome = try inotify.withFileDescriptor { fd throws(SystemCallError) in
            try waitReadable(fd, wake: wake, deadline: deadline)
        }
        switch outcome {
        case .woken: return .woken
        case .timedOut: return .timedOut
        case .ready: return .events(try readEvents())
        }
    }

    /// Calls `body` with the inotify descriptor, for a wait that is not `wait`'s (`Readiness`).
    /// - Throws: `EBADF` once closed, or what `body` throws.
    package func withDescriptor<T>(_ body: (CInt) async throws -> T) async throws -> T {
        let fd = try inotify.withFileDescriptor { $0 }
        return try await body(fd)
    }

    /// Reads every queued event without blocking; empty when none is queued.
    /// - Throws: `SystemCallError` from read(2), or `EBADF` once closed.
    package func readEvents() throws(SystemCallError) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        // Room for many events: each is 16 bytes plus a padded name of at most NAME_MAX + 1.
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = try inotify.withFileDescriptor { fd in
                buffer.withUnsafeMutableBytes { sys_read(fd, $0) }
            }
            switch result {
            case .success(let count) where count > 0:
                events += buffer.withUnsafeBytes { InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            case .success, .failure(.wouldBlock):
                return events
            case .failure(let errno):
                throw SystemCallError(call: "read", errno: errno)
            }
        }
    }

    /// Closes the inotify descriptor, which ends every watch; later calls throw `EBADF`.
    package func close() {
        inotify.closeDiscardingError()
    }
}
