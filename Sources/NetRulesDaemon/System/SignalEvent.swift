@preconcurrency import Glibc

/// A signal the daemon reacts to.
package enum SignalEvent: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `SIGHUP`: reload the rules (`systemctl reload`, `kill -HUP`).
    case hangup
    /// `SIGTERM`: shut down gracefully (`systemctl stop`).
    case terminate
    /// `SIGINT`: shut down gracefully (Ctrl-C in a terminal).
    case interrupt

    /// The C signal number: `SIGHUP`, `SIGTERM` or `SIGINT`.
    package var signalNumber: CInt {
        switch self {
        case .hangup: SIGHUP
        case .terminate: SIGTERM
        case .interrupt: SIGINT
        }
    }

    /// The C name, such as `SIGHUP`, for logs.
    package var description: String {
        switch self {
        case .hangup: "SIGHUP"
        case .terminate: "SIGTERM"
        case .interrupt: "SIGINT"
        }
    }
}
