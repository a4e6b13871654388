import NetRulesCore
import NetRulesSystem

/// A failure of the control socket that a person must act on: another daemon owns the socket, the
/// socket refuses this user, or its path is unusable.
///
/// Shaped like the project's runtime errors (STYLE §7): an extensible `code`, a human `message`,
/// an optional `cause` and the throw site.
package struct ControlSocketError: DetailedError, Sendable {
    /// What went wrong, as a value code can branch on.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Hashable, Sendable {
            case anotherDaemon, permissionDenied, invalidPath, protocolViolation
        }

        fileprivate let kind: Kind

        /// Another daemon answers on the socket; this one must not take it over.
        package static let anotherDaemon = Code(kind: .anotherDaemon)
        /// The socket (or its directory) does not let this user connect.
        package static let permissionDenied = Code(kind: .permissionDenied)
        /// The path is too long for a UNIX socket, or something that is not a socket is in the way.
        package static let invalidPath = Code(kind: .invalidPath)
        /// The daemon's answer was not one JSON line.
        package static let protocolViolation = Code(kind: .protocolViolation)

        package var description: String {
            switch kind {
            case .anotherDaemon: "another daemon"
            case .permissionDenied: "permission denied"
            case .invalidPath: "invalid path"
            case .protocolViolation: "protocol violation"
            }
        }
    }

    package var code: Code
    /// A sentence for the user, naming the socket.
    package var message: String
    /// The underlying failure, such as a `SystemCallError`.
    package var cause: (any Error & Sendable)?
    package var file: String
    package var line: Int

    /// Creates the error, recording where it was thrown.
    package init(
        _ code: Code, _ message: String, cause: (any Error & Sendable)? = nil, file: String = #fileID,
        line: Int = #line
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
