import NetRulesCore
import NetRulesSystem

/// A failure to read or write the daemon's persisted state (`state.json`, the journal's
/// `journal.<n>.jsonl`, `history.jsonl`): which file, what was being done, and the system call or decoding step that
/// failed.
///
/// Shaped like the project's runtime errors (STYLE §7): an extensible `code`, a human `message`,
/// an optional `cause` and the throw site.
package struct StateFileError: DetailedError, Sendable {
    /// What went wrong, as a value code can branch on.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Hashable, Sendable {
            case writeFailed, unreadable, invalid
        }

        fileprivate let kind: Kind

        /// The file could not be written (or the journal appended to, or emptied).
        package static let writeFailed = Code(kind: .writeFailed)
        /// The file exists and could not be read.
        package static let unreadable = Code(kind: .unreadable)
        /// The file's contents are not what netrules writes.
        package static let invalid = Code(kind: .invalid)

        package var description: String {
            switch kind {
            case .writeFailed: "write failed"
            case .unreadable: "unreadable"
            case .invalid: "invalid"
            }
        }
    }

    package var code: Code
    /// A sentence for the user, naming the file.
    package var message: String
    /// The underlying failure, such as a `SystemCallError` or a `StateCodingError`.
    package var cause: (any Error & Sendable)?
    package var file: String
    package var line: Int

    /// Creates an error thrown at the caller's site.
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
