/// A failed system call: which call, and the errno it left.
///
/// Renders as `'recvmsg' failed: (11) Resource temporarily unavailable`.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function that failed, such as `recvmsg`.
    public let call: String
    /// The error it reported.
    public let errno: Errno

    /// Creates the error for `call` failing with `errno`.
    public init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "'\(call)' failed: (\(errno.rawValue)) \(errno)"
    }
}
