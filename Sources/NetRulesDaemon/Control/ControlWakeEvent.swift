internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesLinux

/// An `eventfd` that a blocked `poll` also watches, so another thread can wake it to stop.
///
/// `signal()` is safe from any thread, including a task-cancellation handler. The counter stays
/// set once signalled, so a wake-up that comes before the poller starts is not lost. The
/// descriptor closes in `deinit`, when neither the poller nor the signaller holds the event any
/// more, so `signal()` can never write to a reused number.
final class ControlWakeEvent: Sendable {
    private let descriptor: ControlDescriptor

    init() throws {
        let fd = try ControlSyscalls.eventfd(CInt(EFD_CLOEXEC | EFD_NONBLOCK)).control("eventfd")
        descriptor = ControlDescriptor(taking: fd)
    }

    /// Wakes every poller; idempotent.
    func signal() {
        var one: UInt64 = 1
        _ = try? descriptor.withFileDescriptor { fd in
            withUnsafeBytes(of: &one) { _ = ControlSyscalls.write(fd, $0.baseAddress!, 8) }
        }
    }

    /// The raw descriptor, for a `pollfd` array; valid while `self` is alive.
    var fd: CInt { (try? descriptor.withFileDescriptor { $0 }) ?? -1 }
}
