import NetRulesSystem

/// Why an ICMP echo could not be sent or awaited (a lost packet is not an error: it is a timeout).
public struct ICMPError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; extensible, so switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable { case permissionDenied, unavailable, sendFailed, cancelled, closed }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Neither a datagram nor a raw ICMP socket may be opened; the message names the sysctl.
        public static let permissionDenied = Code(.permissionDenied)
        /// The address family is not available (IPv6 disabled).
        public static let unavailable = Code(.unavailable)
        /// The kernel refused to send: no route, a blackhole or prohibit route, the link is down.
        public static let sendFailed = Code(.sendFailed)
        /// The calling task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The pinger was shut down.
        public static let closed = Code(.closed)

        public var description: String {
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
    public var code: Code
    /// A sentence for people.
    public var message: String
    /// The system call's failure, when one caused this.
    public var cause: SystemCallError?

    /// Creates an error.
    public init(code: Code, message: String, cause: SystemCallError? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }

    /// The message followed by the system call that failed.
    public var detailedDescription: String {
        cause.map { "\(message) (\($0))" } ?? message
    }
}
