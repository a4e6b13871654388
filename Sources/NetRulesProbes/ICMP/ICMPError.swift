import NetRulesCore
import NetRulesSystem

/// Why an ICMP echo could not be sent or awaited (a lost packet is not an error: it is a timeout).
package struct ICMPError: DetailedError, Sendable {
    /// The kind of failure; extensible, so switch with a `default`.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable { case permissionDenied, unavailable, sendFailed, cancelled, closed }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Neither a datagram nor a raw ICMP socket may be opened; the message names the sysctl.
        package static let permissionDenied = Code(.permissionDenied)
        /// The address family is not available (IPv6 disabled).
        package static let unavailable = Code(.unavailable)
        /// The kernel refused to send: no route, a blackhole or prohibit route, the link is down.
        package static let sendFailed = Code(.sendFailed)
        /// The calling task was cancelled.
        package static let cancelled = Code(.cancelled)
        /// The pinger was shut down.
        package static let closed = Code(.closed)

        package var description: String {
            switch wrapped {
            case .permissionDenied: "permission denied"
            case .unavailable: "unavailable"
            case .sendFailed: "send failed"
            case .cancelled: "cancelled"
            case .closed: "closed"
            }
        }
    }

    /// The kind of failure.
    package var code: Code
    /// A sentence for people.
    package var message: String
    /// The system call's failure, when one caused this.
    package var cause: SystemCallError?

    /// Where the error was thrown.
    package var file: String
    /// Where the error was thrown.
    package var line: Int

    /// Creates an error.
    package init(
        code: Code, message: String, cause: SystemCallError? = nil, file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }

    package var description: String { message }

    package var underlyingError: (any Error)? { cause }
}
