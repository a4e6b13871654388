internal import CNetRulesLinux
@preconcurrency import Glibc

/// An `eventfd` that a blocked `poll` also waits on, so another thread can wake it to stop.
///
/// `signal()` is safe from any thread, including a task cancellation handler. The counter stays
/// set once signalled, so a wake-up that happens before the reader starts polling is not lost.
package final class WakeEvent: Sendable {
    /// The eventfd's owner.
    package let descriptor: FileDescriptor

    /// Creates the eventfd (close-on-exec, non-blocking).
    /// - Throws: `SystemCallError` from eventfd(2).
    package init() throws(SystemCallError) {
        let fd = try sys_eventfd(0, CInt(EFD_CLOEXEC | EFD_NONBLOCK)).get(call: "eventfd")
        descriptor = FileDescriptor(taking: fd)
    }

    /// Wakes every poller; idempotent.
    package func signal() {
        var one: UInt64 = 1
        // The only failure is EBADF after close(), when nobody waits any more; a write(2) to an
        // eventfd fails otherwise only at a count of 2^64-1, which still wakes every poller.
        _ = try? descriptor.withFileDescriptor { fd in
            withUnsafeBytes(of: &one) { _ = sys_write(fd, $0) }
        }
    }

    /// Clears the signals so far (one eventfd(2) read), for a poller that handled a wake-up and
    /// waits again; a `signal()` after this wakes it again.
    package func reset() {
        var count: UInt64 = 0
        // EBADF after close() (nothing to clear), or EAGAIN when no signal was pending, which is the
        // state reset() wants.
        _ = try? descriptor.withFileDescriptor { fd in
            withUnsafeMutableBytes(of: &count) { _ = sys_read(fd, $0) }
        }
    }

    /// Blocks the calling thread until the event is signalled (or closed); no timer.
    ///
    /// Call it on a dedicated thread. The counter stays set, so call `reset()` before waiting again.
    package func wait() {
        // A closed event ends the wait, as documented; poll(2)'s other errors (ENOMEM) return early
        // too, and the caller's loop then waits again.
        _ = try? descriptor.withFileDescriptor { fd throws(SystemCallError) in
            try waitReadable(fd, wake: nil, deadline: nil)
        }
    }

    /// The raw fd, for a `pollfd` array; -1 once closed.
    // A closed event has no number, which -1 says to poll(2) (it ignores negative entries).
    package var fd: CInt { (try? descriptor.withFileDescriptor { $0 }) ?? -1 }

    /// Closes the eventfd.
    package func close() { descriptor.closeDiscardingError() }
}
