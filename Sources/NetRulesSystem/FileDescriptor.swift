@preconcurrency import Glibc
import Synchronization

/// The single owner of one open file descriptor: it closes the descriptor exactly once.
///
/// Raw access goes through `withFileDescriptor`, which throws `EBADF` once `close()` has run, so
/// no code uses a number the kernel may already have handed to someone else. Thread-safe: the
/// lock is held only to count uses, never across `body`, so a `close()` from another thread
/// neither waits for a blocking `poll` to return nor deadlocks a nested use. A `close()` that
/// arrives while a use is running takes effect when the last use returns; until then that use
/// keeps a valid descriptor.
package final class FileDescriptor: Sendable {
    private struct State {
        /// The descriptor, or -1 once the kernel has been told to close it.
        var fd: CInt
        /// Whether `close()` has run; new uses are refused from then on.
        var isClosed = false
        /// How many `withFileDescriptor` bodies are running now.
        var uses = 0

        /// The descriptor, leaving -1 so that no one closes it twice.
        mutating func take() -> CInt {
            defer { fd = -1 }
            return fd
        }
    }

    private let state: Mutex<State>

    /// Takes ownership of `fd`, which nothing else may close from now on.
    ///
    /// - Parameter fd: An open descriptor, as `open(2)` or `socket(2)` returned it.
    package init(taking fd: CInt) {
        precondition(fd >= 0, "taking an invalid file descriptor")
        state = Mutex(State(fd: fd))
    }

    /// Whether `close()` has run.
    package var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Calls `body` with the raw descriptor, keeping it open until `body` returns.
    ///
    /// Do not keep the number after `body` returns.
    ///
    /// - Parameter body: The work that needs the number, typically a layer (a) `sys_*` call.
    /// - Returns: What `body` returns.
    /// - Throws: `SystemCallError` with `EBADF` once closed, or what `body` throws.
    package func withFileDescriptor<R>(_ body: (CInt) throws(SystemCallError) -> R) throws(SystemCallError) -> R {
        let fd = try beginUse()
        defer { endUse() }
        return try body(fd)
    }

    /// Calls `body` with the raw descriptor, keeping it open until `body` returns.
    ///
    /// The variant for bodies that throw something other than `SystemCallError`.
    ///
    /// - Parameter body: The work that needs the number.
    /// - Returns: What `body` returns.
    /// - Throws: `SystemCallError` with `EBADF` once closed, or what `body` throws.
    package func withFileDescriptor<R>(_ body: (CInt) throws -> R) throws -> R {
        let fd = try beginUse()
        defer { endUse() }
        return try body(fd)
    }

    /// Closes the descriptor (`close(2)`); later calls do nothing.
    ///
    /// If another thread is inside `withFileDescriptor`, the descriptor is closed when it returns
    /// and any error of that close is dropped, as it has nowhere to go.
    ///
    /// - Throws: `SystemCallError` from close(2). The descriptor is released even then.
    package func close() throws(SystemCallError) {
        let fd = state.withLock { state -> CInt in
            guard !state.isClosed else { return -1 }
            state.isClosed = true
            return state.uses == 0 ? state.take() : -1
        }
        guard fd >= 0 else { return }
        _ = try sys_close(fd).get(call: "close")
    }

    /// Closes the descriptor where a failure of close(2) has nobody to tell and changes nothing.
    ///
    /// Linux releases the number even when close(2) fails (`EINTR`, `EIO`), so there is nothing
    /// to retry, and a retry could close a number another thread was just given. The error can
    /// only matter for a file whose writes were not checked otherwise; use `close()` there (as
    /// `AtomicFile.replace` does before its rename). Sockets, pipes, pidfds, descriptors only read
    /// from and files already fsynced use this.
    package func closeDiscardingError() {
        // See above; the descriptor is released either way.
        _ = try? close()
    }

    /// Runs `body` with this descriptor and closes it afterwards, even when `body` throws
    /// (swift-system's `closeAfter`).
    ///
    /// - Parameter body: The work to do before closing.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; an error from close(2) itself is dropped.
    package func closeAfter<R, E: Error>(_ body: (FileDescriptor) throws(E) -> R) throws(E) -> R {
        defer { closeDiscardingError() }
        return try body(self)
    }

    deinit {
        // An owner dropped without close is a bug in its user, but closing here keeps a long-running
        // daemon from running out of descriptors; the error has nowhere to go.
        let fd = state.withLock { $0.fd }
        if fd >= 0 { _ = sys_close(fd) }
    }

    private func beginUse() throws(SystemCallError) -> CInt {
        let fd = state.withLock { state -> CInt in
            guard !state.isClosed else { return -1 }
            state.uses += 1
            return state.fd
        }
        guard fd >= 0 else { throw SystemCallError(call: "withFileDescriptor", errno: .badFileDescriptor) }
        return fd
    }

    private func endUse() {
        let fd = state.withLock { state -> CInt in
            state.uses -= 1
            return state.isClosed && state.uses == 0 ? state.take() : -1
        }
        if fd >= 0 { _ = sys_close(fd) }
    }
}
