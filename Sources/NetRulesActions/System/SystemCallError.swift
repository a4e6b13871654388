/// A system call that failed, with the call's name and its errno.
///
/// Renders as `'write' failed: (28) No space left on device`.
struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function's name, as in its man page.
    var call: String
    var errno: Errno

    init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    var description: String { "'\(call)' failed: \(errno)" }
}

extension Result where Failure == Errno {
    /// The value, or a `SystemCallError` naming `call`.
    func get(call: String) throws(SystemCallError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let errno): throw SystemCallError(call: call, errno: errno)
        }
    }
}
