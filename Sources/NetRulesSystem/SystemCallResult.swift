@preconcurrency import Glibc

// Layer (b) of STYLE §11, used by layer (a) in `Syscalls.swift`, whose header states the EINTR policy.

/// Runs a C call once, turning its `-1` failure into the `errno` it left.
///
/// `errno` is read immediately after the call returns, before anything else can overwrite it.
/// This never retries; it is the right helper for `close(2)` (see `retryingOnEINTR`) and for
/// calls that cannot block.
///
/// - Parameter body: The C call, returning `-1` and setting `errno` on failure.
/// - Returns: The call's result, or the errno it failed with.
package func valueOrErrno<Value: FixedWidthInteger>(_ body: () -> Value) -> Result<Value, Errno> {
    let value = body()
    if value == -1 { return .failure(Errno.current) }
    return .success(value)
}

/// Runs a C call, retrying it while it fails with `EINTR`.
///
/// Never use this for `close(2)`: on Linux the descriptor is already released when close reports
/// `EINTR`, and a retry could close a descriptor another thread has just been given (see the
/// close(2) NOTES and https://lwn.net/Articles/576478/). Pass `retryOnInterrupt: false` where the
/// caller must see the interruption. `sys_poll` does not use this: it retries with the time that is
/// left (see the EINTR policy at the top of `Syscalls.swift`).
///
/// - Parameters:
///   - retryOnInterrupt: Whether an `EINTR` failure runs the call again; true unless told otherwise.
///   - body: The C call, returning `-1` and setting `errno` on failure.
/// - Returns: The call's result, or the errno it failed with.
package func retryingOnEINTR<Value: FixedWidthInteger>(
    retryOnInterrupt: Bool = true,
    _ body: () -> Value
) -> Result<Value, Errno> {
    while true {
        let result = valueOrErrno(body)
        if retryOnInterrupt, case .failure(.interrupted) = result { continue }
        return result
    }
}

extension Result where Failure == Errno {
    /// Layer (c) helper: the value, or a `SystemCallError` naming `call`.
    ///
    /// `EBADF` and `EFAULT` mean a bug in our own code (a descriptor used after close, a bad
    /// pointer), not a runtime condition, so debug builds stop there (NIO's rule, STYLE §11).
    ///
    /// - Parameter call: The C function's name, for the error.
    /// - Returns: The success value.
    /// - Throws: `SystemCallError` carrying the errno.
    package func get(call: String) throws(SystemCallError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let errno):
            assert(errno != .badFileDescriptor && errno != .badAddress, "'\(call)' failed with \(errno): a bug")
            throw SystemCallError(call: call, errno: errno)
        }
    }
}
