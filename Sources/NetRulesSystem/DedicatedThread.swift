@preconcurrency import Glibc

/// Runs blocking work on a thread of its own, so a `poll`, `waitpid` or blocking read never parks
/// a thread of Swift's cooperative pool (STYLE §16).
///
/// The threads are detached: `body` must return on its own (readers watch a wake-up descriptor).
public enum DedicatedThread {
    /// The stack size of threads from `run` and `start`.
    ///
    /// The loops these threads run are shallow; 256 KiB instead of the 8 MiB default keeps a
    /// burst of concurrent actions cheap.
    public static let compactStackSize = 256 * 1024

    /// Runs `body` on a new detached thread and returns its result.
    ///
    /// If no thread can be created, `body` runs on the caller's thread instead, so the work is
    /// still done.
    ///
    /// - Parameter body: The blocking work.
    /// - Returns: What `body` returns.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: body()) }
        }
    }

    /// Starts `body` on a new detached thread with a compact stack; if no thread can be created,
    /// runs it on the caller's.
    ///
    /// - Parameter body: The blocking work.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        do {
            try spawn(stackSize: compactStackSize, body)
        } catch {
            body()
        }
    }

    /// Starts `body` on a new detached thread (`pthread_create(3)`).
    ///
    /// - Parameters:
    ///   - stackSize: The thread's stack in bytes, or nil for the system default (8 MiB).
    ///   - body: The work, which must return on its own.
    /// - Throws: `SystemCallError` from `pthread_create` (for example `EAGAIN` at a thread limit);
    ///   `body` has not run then.
    public static func spawn(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
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
                Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, box)
        if case .failure(let errno) = result {
            Unmanaged<Body>.fromOpaque(box).release()
            throw SystemCallError(call: "pthread_create", errno: errno)
        }
    }

    /// What a new thread runs; passed through `pthread_create`'s context pointer.
    private final class Body: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
