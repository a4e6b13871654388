@preconcurrency internal import Glibc

// The only place in NetRulesCLI that calls Glibc functions directly (STYLE §11, layer a).
// Add further system calls of this target here rather than in a second file.

/// Layer (a) for write(2): writes bytes from `buffer` to `fileDescriptor`.
///
/// - Returns: The number of bytes written, or -1 with `errno` set.
func sys_write(_ fileDescriptor: CInt, _ buffer: UnsafeRawBufferPointer) -> Int {
    Glibc.write(fileDescriptor, buffer.baseAddress, buffer.count)
}

/// Layer (a) for ioctl(2) with `TIOCGWINSZ` (see ioctl_tty(2)): the window size of the terminal on `fileDescriptor`.
///
/// - Returns: 0 on success, or -1 with `errno` set (`ENOTTY` when the descriptor is not a terminal).
func sys_ioctl_TIOCGWINSZ(_ fileDescriptor: CInt, _ size: inout winsize) -> CInt {
    ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size)
}

/// Layer (b): runs a system call, retrying it while it fails with `EINTR`.
///
/// `errno` is read immediately after the call returns, before anything else can overwrite it. Never use this for
/// close(2), which must not be retried on Linux: the descriptor is already released when it reports `EINTR`.
///
/// - Parameter call: The layer-(a) call, returning -1 on failure.
/// - Returns: The call's result, or the `errno` it failed with.
func retryingOnEINTR<Value: FixedWidthInteger>(_ call: () -> Value) -> Result<Value, Errno> {
    while true {
        let result = call()
        if result != -1 {
            return .success(result)
        }
        let error = Errno(rawValue: errno)
        if error != .interrupted {
            return .failure(error)
        }
    }
}

/// A C `errno` value.
///
/// Internal to this target: the CLI only needs to tell an interrupted call from a failed one.
struct Errno: RawRepresentable, Error, Hashable, Sendable {
    /// The C value, for example `EINTR`.
    var rawValue: CInt

    /// The call was interrupted by a signal and may be retried. The corresponding C constant is `EINTR`.
    static let interrupted = Errno(rawValue: EINTR)
}

/// The file descriptor of standard output. The corresponding C constant is `STDOUT_FILENO`.
let standardOutputFileDescriptor: CInt = STDOUT_FILENO

/// The file descriptor of standard error. The corresponding C constant is `STDERR_FILENO`.
let standardErrorFileDescriptor: CInt = STDERR_FILENO
