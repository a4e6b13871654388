internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

/// An `eventfd` that a blocked `poll` also waits on, so another thread can wake it to stop.
///
/// `signal()` is safe from any thread, including a task cancellation handler. The counter stays
/// set once signalled, so a wake-up that happens before the reader starts polling is not lost.
final class WakeEvent: Sendable {
    let descriptor: FileDescriptor

    init() throws {
        let fd = try sys_eventfd(0, CInt(EFD_CLOEXEC | EFD_NONBLOCK)).get(call: "eventfd")
        descriptor = FileDescriptor(taking: fd)
    }

    /// Wakes every poller; idempotent.
    func signal() {
        var one: UInt64 = 1
        _ = try? descriptor.withFileDescriptor { fd in
            withUnsafeBytes(of: &one) { _ = sys_write(fd, $0.baseAddress!, 8) }
        }
    }

    /// Closes the eventfd.
    func close() { try? descriptor.close() }
}
