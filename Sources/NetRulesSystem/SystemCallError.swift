/// A system call that failed: which call, and the errno it left.
///
/// Renders as `'recvmsg' failed: (11) Resource temporarily unavailable`. `catch Errno.wouldBlock`
/// matches it by its errno (see `Errno.~=`).
package struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function that failed, as its man page names it, such as `recvmsg`.
    package var call: String
    /// The error it reported.
    package var errno: Errno

    /// Creates the error for `call` failing with `errno`.
    ///
    /// - Parameters:
    ///   - call: The C function's name, or a short name for a step such as `withFileDescriptor`.
    ///   - errno: What it failed with.
    package init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// The call and its errno: `'recvmsg' failed: (11) Resource temporarily unavailable`.
    package var description: String { "'\(call)' failed: \(errno)" }
}
