import NetRulesCore

/// Why an action failed: a code to branch on, a message for the log, the underlying cause and
/// where it was thrown.
public struct ActionError: DetailedError, Sendable {
    /// The kind of failure; extensible without breaking callers that switch on it.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case spawnFailed, timedOut, exitedWithFailure, killedBySignal, ioFailed
            case httpStatus, transportFailed, pluginNotFound, invalidPath, dropped
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The process could not be started.
        public static let spawnFailed = Code(.spawnFailed)
        /// The action ran past its timeout and was killed.
        public static let timedOut = Code(.timedOut)
        /// The process exited with a status other than 0.
        public static let exitedWithFailure = Code(.exitedWithFailure)
        /// The process was ended by a signal it did not get from us.
        public static let killedBySignal = Code(.killedBySignal)
        /// Reading, writing or renaming a file failed.
        public static let ioFailed = Code(.ioFailed)
        /// The server answered with a final non-2xx status.
        public static let httpStatus = Code(.httpStatus)
        /// The request never got an answer (connection refused, timeout, TLS) after every attempt.
        public static let transportFailed = Code(.transportFailed)
        /// No executable `netrules-action-NAME` was found.
        public static let pluginNotFound = Code(.pluginNotFound)
        /// A `write:` path is not acceptable.
        public static let invalidPath = Code(.invalidPath)
        /// The firing was dropped before it ran.
        public static let dropped = Code(.dropped)

        public var description: String { String(describing: value) }
    }

    public var code: Code
    /// A sentence for the log; never contains header values or bodies.
    public var message: String
    public var cause: (any Error & Sendable)?
    public var file: String
    public var line: Int

    public init(
        _ code: Code, _ message: String, cause: (any Error & Sendable)? = nil, file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }

    public var description: String {
        if let cause { return "\(message): \(cause)" }
        return message
    }

    /// The message, the throw site and the whole cause chain, for debugging.
    public var detailedDescription: String {
        Self.withCauses("\(message) (\(code), at \(file):\(line))", cause)
    }
}
