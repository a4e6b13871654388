/// A system call that failed, and why: `'recvmsg' failed: (11) Resource temporarily unavailable`.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name of the call, as in its man page.
    public var call: String
    /// The errno it set.
    public var errno: Errno

    /// Creates an error for `call` failing with `errno`.
    public init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "'\(call)' failed: \(errno)" }
}
