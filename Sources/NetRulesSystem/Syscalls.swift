internal import CNetRulesLinux
@preconcurrency import Glibc

// Layer (a) of STYLE §11 for this target: the only code here that calls the C library.

/// Never retried: on Linux the descriptor is released even when close reports `EINTR`, and a retry
/// could close a descriptor another thread has just been given (see the close(2) NOTES).
func sys_close(_ fd: CInt) -> Result<CInt, Errno> {
    valueOrErrno { close(fd) }
}

/// pthread_create(3) with its attributes; it returns its error instead of setting `errno`.
func sys_pthread_create(
    _ thread: UnsafeMutablePointer<pthread_t>,
    _ attributes: UnsafePointer<pthread_attr_t>,
    _ start: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
    _ context: UnsafeMutableRawPointer
) -> Result<CInt, Errno> {
    let result = pthread_create(thread, attributes, start, context)
    return result == 0 ? .success(0) : .failure(Errno(rawValue: result))
}

/// Names the calling thread (`prctl(PR_SET_NAME)`, prctl(2)), as `ps -L` and `top -H` show it.
///
/// The kernel keeps 15 bytes; longer names are cut to 15 characters first. It cannot fail for the
/// calling thread.
func sys_set_thread_name(_ name: String) {
    String(name.prefix(15)).withCString { CNetRulesLinux_set_thread_name($0) }
}

func sys_eventfd(_ initial: CUnsignedInt, _ flags: CInt) -> Result<CInt, Errno> {
    valueOrErrno { eventfd(initial, flags) }
}

func sys_write(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int) -> Result<Int, Errno> {
    retryingOnEINTR { write(fd, buffer, count) }
}

func sys_read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Result<Int, Errno> {
    retryingOnEINTR { read(fd, buffer, count) }
}
