/// Why an action failed: a code to branch on, a message for the log, the underlying cause and
/// where it was thrown.
package struct ActionError: DetailedError, Sendable {
    /// The kind of failure; extensible without breaking callers that switch on it.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case spawnFailed, timedOut, exitedWithFailure, killedBySignal, ioFailed
            case httpStatus, transportFailed, pluginNotFound, invalidPath, dropped, missingSecret, outboxFull
            case userUnavailable, invalidTopic, notConnected, brokerRefused, untrustedProgram
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The process could not be started.
        package static let spawnFailed = Code(.spawnFailed)
        /// The action ran past its timeout and was killed.
        package static let timedOut = Code(.timedOut)
        /// The process exited with a status other than 0.
        package static let exitedWithFailure = Code(.exitedWithFailure)
        /// The process was ended by a signal it did not get from us.
        package static let killedBySignal = Code(.killedBySignal)
        /// Reading, writing or renaming a file failed.
        package static let ioFailed = Code(.ioFailed)
        /// The server answered with a final non-2xx status.
        package static let httpStatus = Code(.httpStatus)
        /// The request never got an answer (connection refused, timeout, TLS) after every attempt.
        package static let transportFailed = Code(.transportFailed)
        /// No executable `netrules-action-NAME` was found.
        package static let pluginNotFound = Code(.pluginNotFound)
        /// A `write:` path is not acceptable.
        package static let invalidPath = Code(.invalidPath)
        /// The firing was dropped before it ran.
        package static let dropped = Code(.dropped)
        /// The action reads `{{env.NAME}}` and the daemon's environment leaves NAME unset or
        /// empty, so it was not started (nothing sent, run or written).
        package static let missingSecret = Code(.missingSecret)
        /// The webhook outbox is at one of its limits: a pending delivery was moved to `failed/` to
        /// make room, or a new one could not be queued.
        package static let outboxFull = Code(.outboxFull)
        /// The action's `user:` names no account, or one a per-user daemon cannot run as.
        package static let userUnavailable = Code(.userUnavailable)
        /// An `mqtt:` action's values make no topic (an empty level, `/`, `+`, `#`, not UTF-8).
        package static let invalidTopic = Code(.invalidTopic)
        /// A QoS 0 `mqtt:` message while the broker is not connected (or without `mqtt:`): not sent.
        package static let notConnected = Code(.notConnected)
        /// The broker (or libmosquitto) refused an `mqtt:` message for good.
        package static let brokerRefused = Code(.brokerRefused)
        /// A program, script or plugin that would run as root can be changed by someone other
        /// than root (`FileTrust`), so it was not started.
        package static let untrustedProgram = Code(.untrustedProgram)

        package var description: String { String(describing: value) }
    }

    package var code: Code
    /// A sentence for the log; never contains header values or bodies.
    package var message: String
    package var cause: (any Error & Sendable)?
    package var file: String
    package var line: Int

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

    package var description: String {
        if let cause { return "\(message): \(cause)" }
        return message
    }

    package var underlyingError: (any Error)? { cause }
}
