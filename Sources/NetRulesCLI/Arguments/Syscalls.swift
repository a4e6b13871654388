@preconcurrency internal import Glibc

// The only place in NetRulesCLI that calls Glibc functions directly (STYLE §11, layer a).
// Add further system calls of this target here rather than in a second file. Layer (b),
// `retryingOnEINTR`, and `Errno` come from NetRulesSystem.

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

/// The file descriptor of standard output. The corresponding C constant is `STDOUT_FILENO`.
let standardOutputFileDescriptor: CInt = STDOUT_FILENO

/// The file descriptor of standard error. The corresponding C constant is `STDERR_FILENO`.
let standardErrorFileDescriptor: CInt = STDERR_FILENO
