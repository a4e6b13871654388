internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

/// Runs blocking work on a thread of its own, so a `poll` that waits for hours never parks a
/// thread of Swift's cooperative pool (STYLE §16).
enum DedicatedThread {
    /// Runs `body` on a new detached thread named `name` and returns its result.
    ///
    /// `body` must return on its own; blocking loops watch a `WakeEvent` that cancellation signals.
    /// - Throws: What `body` throws, or `SystemCallError` when no thread can be created.
    static func run<R: Sendable>(name: String, _ body: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let start = ThreadStart(name: name) {
                continuation.resume(with: Result { try body() })
            }
            let box = Unmanaged.passRetained(start).toOpaque()
            // Allocated rather than `pthread_attr_t()`: with MemberImportVisibility the zero
            // initializer of this C struct resolves through whichever module imported it first.
            let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
            pthread_attr_init(attributes)
            defer {
                pthread_attr_destroy(attributes)
                attributes.deallocate()
            }
            pthread_attr_setdetachstate(attributes, CInt(PTHREAD_CREATE_DETACHED))
            // The loops these threads run are shallow; 256 KiB instead of the 8 MiB default.
            pthread_attr_setstacksize(attributes, 256 * 1024)
            var thread = pthread_t()
            let result = pthread_create(
                &thread, attributes,
                { raw in
                    let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
                    String(start.name.prefix(15)).withCString { CNetRulesLinux_set_thread_name($0) }
                    start.work()
                    return nil
                }, box)
            if result != 0 {
                Unmanaged<ThreadStart>.fromOpaque(box).release()
                continuation.resume(throwing: SystemCallError(call: "pthread_create", errno: Errno(rawValue: result)))
            }
        }
    }
}

/// What a new thread runs; passed through `pthread_create`'s context pointer.
private final class ThreadStart: Sendable {
    let name: String
    let work: @Sendable () -> Void

    init(name: String, work: @escaping @Sendable () -> Void) {
        self.name = name
        self.work = work
    }
}
