internal import CNetRulesLinux
@preconcurrency import Glibc

/// Runs blocking work on a thread of its own, so a `poll`, `waitpid` or blocking read never parks
/// a thread of Swift's cooperative pool (STYLE §16).
///
/// The threads are detached: `body` must return on its own (readers watch a wake-up descriptor).
package enum DedicatedThread {
    /// The stack size of threads from `run` and `start`.
    ///
    /// The loops these threads run are shallow; 256 KiB instead of the 8 MiB default keeps a
    /// burst of concurrent actions cheap.
    package static let compactStackSize = 256 * 1024

    /// Runs `body` on a new detached thread and returns its result.
    ///
    /// If no thread can be created, `body` waits for a thread of `BlockingPool.shared` instead:
    /// never the caller's, which may be the daemon's loop.
    ///
    /// - Parameter body: The blocking work.
    /// - Returns: What `body` returns.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: body()) }
        }
    }

    /// Starts `body` on a new detached thread with a compact stack; if no thread can be created,
    /// queues it on `BlockingPool.shared` (a long loop then holds one of the pool's threads, which
    /// is a slower daemon rather than a loop thread blocked for good).
    ///
    /// - Parameters:
    ///   - name: The thread's name (see `spawn`), or nil to leave the inherited one.
    ///   - body: The blocking work.
    package static func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        do {
            try spawn(name: name, stackSize: compactStackSize, body)
        } catch {
            BlockingPool.shared.spawn(body)
        }
    }

    /// Runs `body` on a new detached thread and returns its result, or throws what it throws.
    ///
    /// Unlike `run`, this never falls back to the caller's thread: a loop that blocks for hours
    /// must not park a thread of the cooperative pool, so failing to create the thread is an error.
    ///
    /// - Parameters:
    ///   - name: The thread's name (see `spawn`), or nil to leave the inherited one.
    ///   - stackSize: The thread's stack in bytes, or nil for the system default (8 MiB).
    ///   - body: The blocking work, which must return on its own.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or `SystemCallError` from `pthread_create` (`body` has not run then).
    package static func spawnAndWait<R: Sendable>(
        name: String? = nil,
        stackSize: Int? = nil,
        _ body: @escaping @Sendable () throws -> R
    ) async throws -> R {
        try await spawnAndWait(name: name, stackSize: stackSize, networkNamespace: nil, body)
    }

    /// Runs `body` on a new detached thread that has first joined the network namespace at
    /// `networkNamespace` (see `joinNetworkNamespace`), and returns its result.
    ///
    /// - Parameters:
    ///   - name: The thread's name (see `spawn`), or nil to leave the inherited one.
    ///   - stackSize: The thread's stack in bytes, or nil for the system default (8 MiB).
    ///   - networkNamespace: A namespace file such as `/run/netns/NAME`, or nil to stay in ours.
    ///   - body: The blocking work, which must return on its own.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or `SystemCallError` from `pthread_create`, open(2) or
    ///   setns(2) (`body` has not run then).
    package static func spawnAndWait<R: Sendable>(
        name: String? = nil,
        stackSize: Int? = nil,
        networkNamespace: String?,
        _ body: @escaping @Sendable () throws -> R
    ) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            do {
                try spawn(name: name, stackSize: stackSize) {
                    continuation.resume(
                        with: Result {
                            if let networkNamespace { try joinNetworkNamespace(networkNamespace) }
                            return try body()
                        })
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Moves the calling thread into the network namespace at `path` (e.g. `/run/netns/NAME`).
    ///
    /// setns(2) with `CLONE_NEWNET` affects only the calling thread, so the rest of the process
    /// stays where it was; only for a thread made for this purpose, never one of the cooperative
    /// pool, or later tasks would run in the namespace.
    /// - Throws: `SystemCallError` from open(2) or setns(2).
    package static func joinNetworkNamespace(_ path: String) throws(SystemCallError) {
        let fd = try sys_open(path, O_RDONLY | O_CLOEXEC).get(call: "open")
        defer { _ = sys_close(fd) }
        _ = try sys_setns(fd, CInt(CLONE_NEWNET)).get(call: "setns")
    }

    /// Starts `body` on a new detached thread (`pthread_create(3)`).
    ///
    /// - Parameters:
    ///   - name: The thread's name, as `ps -L` and `top -H` show it (the kernel keeps the first
    ///     15 bytes), or nil to leave the name inherited from the creating thread.
    ///   - stackSize: The thread's stack in bytes, or nil for the system default (8 MiB).
    ///   - body: The work, which must return on its own.
    /// - Throws: `SystemCallError` from `pthread_create` (for example `EAGAIN` at a thread limit);
    ///   `body` has not run then.
    package static func spawn(
        name: String? = nil,
        stackSize: Int? = nil,
        _ body: @escaping @Sendable () -> Void
    ) throws(SystemCallError) {
        let box = Unmanaged.passRetained(Body(name: name, body)).toOpaque()
        // Allocated rather than `pthread_attr_t()`: with MemberImportVisibility the zero
        // initializer of this C struct resolves through whichever module imported it first.
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        pthread_attr_init(attributes)
        defer {
            pthread_attr_destroy(attributes)
            attributes.deallocate()
        }
        pthread_attr_setdetachstate(attributes, CInt(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(attributes, stackSize) }
        var thread = pthread_t()
        let result = sys_pthread_create(
            &thread, attributes,
            { raw in
                let start = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
                if let name = start.name { sys_set_thread_name(name) }
                start.body()
                return nil
            }, box)
        if case .failure(let errno) = result {
            Unmanaged<Body>.fromOpaque(box).release()
            throw SystemCallError(call: "pthread_create", errno: errno)
        }
    }

    /// What a new thread runs; passed through `pthread_create`'s context pointer.
    private final class Body: Sendable {
        let name: String?
        let body: @Sendable () -> Void
        init(name: String?, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
