/// Why a regular expression was refused: a plain sentence and where in the pattern it applies.
///
/// Rule files show it after the pattern (`invalid regular expression 'Guest-(': expected ')'`), so the
/// message names the construct as the user wrote it and, where it helps, what to write instead.
public struct RegexSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. `backreferences like '\1' are not supported`.
    public var message: String
    /// The Unicode-scalar offset (from 0) in the pattern of the construct at fault.
    ///
    /// `nil` when the problem is at the end of the pattern (a group or class left open) or belongs to
    /// the pattern as a whole (it is too large): an offset would only repeat the pattern's length.
    public var offset: Int?

    /// Creates an error; `offset` is a Unicode-scalar offset into the pattern, or nil (see `offset`).
    public init(message: String, offset: Int?) {
        self.message = message
        self.offset = offset
    }

    /// The message, followed by ` at offset N` when the problem has a position inside the pattern.
    public var description: String {
        guard let offset else { return message }
        return "\(message) at offset \(offset)"
    }
}
