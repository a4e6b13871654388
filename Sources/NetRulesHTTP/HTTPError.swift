import NetRulesCore

/// Why an HTTP request got no answer.
///
/// An HTTP status, even 500, is an answer and comes back as an ``HTTPResponse``; this error
/// means there was none. Its ``code`` is what callers branch on; ``message`` is curl's own
/// explanation for people.
package struct HTTPError: DetailedError, Sendable {
    /// The kind of failure; extensible, so switch with a `default`.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case timeout, couldNotResolve, couldNotConnect, tls, cancelled, invalidRequest, other
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The request took longer than its timeout (`CURLE_OPERATION_TIMEDOUT`).
        package static let timeout = Code(.timeout)
        /// The host name did not resolve (`CURLE_COULDNT_RESOLVE_HOST`).
        package static let couldNotResolve = Code(.couldNotResolve)
        /// No connection: refused, no route, or the bound interface is missing.
        package static let couldNotConnect = Code(.couldNotConnect)
        /// The TLS handshake or certificate (or pin) verification failed.
        package static let tls = Code(.tls)
        /// The calling task was cancelled.
        package static let cancelled = Code(.cancelled)
        /// The request itself is unusable: a bad URL, an unsupported scheme, a bad option.
        package static let invalidRequest = Code(.invalidRequest)
        /// Anything else; see the message.
        package static let other = Code(.other)

        package var description: String {
            switch wrapped {
            case .timeout: "timeout"
            case .couldNotResolve: "could not resolve"
            case .couldNotConnect: "could not connect"
            case .tls: "TLS failure"
            case .cancelled: "cancelled"
            case .invalidRequest: "invalid request"
            case .other: "other"
            }
        }
    }

    /// The kind of failure.
    package var code: Code
    /// A human explanation, usually curl's error buffer.
    package var message: String
    /// curl's `CURLcode`, or 0 when the error did not come from curl.
    package var curlCode: Int
    /// Where the error was thrown.
    package var file: String
    /// Where the error was thrown.
    package var line: Int

    /// Creates an error.
    package init(code: Code, message: String, curlCode: Int = 0, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.file = file
        self.line = line
    }

    package var description: String { "\(code): \(message)" }

    package var detailNotes: [String] { curlCode == 0 ? [] : ["curl code \(curlCode)"] }
}
