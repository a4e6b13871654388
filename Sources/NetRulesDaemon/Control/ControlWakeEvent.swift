internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

/// An `eventfd` that a blocked `poll` also watches, so another thread can wake it to stop.
///
/// `signal()` is safe from any thread, including a task-cancellation handler. The counter stays
/// set once signalled, so a wake-up that comes before the poller starts is not lost. The
/// descriptor closes in `deinit`, when neither the poller nor the signaller holds the event any
/// more, so `signal()` can never write to a reused number.
final class ControlWakeEvent: Sendable {
    private let descriptor: FileDescriptor

    init() throws {
        let fd = try sys_eventfd(0, CInt(EFD_CLOEXEC | EFD_NONBLOCK)).get(call: "eventfd")
        descriptor = FileDescriptor(taking: fd)
    }

    /// Wakes every poller; idempotent.
    func signal() {
        var one: UInt64 = 1
        _ = try? descriptor.withFileDescriptor { fd in
            withUnsafeBytes(of: &one) { _ = try? sys_write(fd, $0).get(call: "write") }
        }
    }

    /// The raw descriptor, for a `pollfd` array; valid while `self` is alive.
    var fd: CInt { (try? descriptor.withFileDescriptor { $0 }) ?? -1 }
}
