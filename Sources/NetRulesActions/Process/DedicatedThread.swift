@preconcurrency import Glibc

/// Runs blocking work on a thread of its own, so a `poll` or `waitpid` never parks the
/// cooperative pool (STYLE §16).
enum DedicatedThread {
    /// Runs `body` on a new detached thread and returns its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: body()) }
        }
    }

    /// Starts `body` on a new detached thread; if no thread can be created, runs it on the caller's.
    static func start(_ body: @escaping @Sendable () -> Void) {
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
        // The loops these threads run are shallow; 256 KiB instead of the 8 MiB default keeps a
        // burst of concurrent actions cheap.
        pthread_attr_setstacksize(attributes, 256 * 1024)
        var thread = pthread_t()
        let result = pthread_create(&thread, attributes, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        if result != 0 {
            Unmanaged<Body>.fromOpaque(box).takeRetainedValue().body()
        }
    }

    private final class Body: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
