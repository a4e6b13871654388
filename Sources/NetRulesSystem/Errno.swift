@preconcurrency import Glibc

/// A POSIX error number, as a failed system call leaves it in `errno`.
///
/// Code that branches on an error names it with a static (`catch Errno.wouldBlock`, see `~=`);
/// any other number is carried through as it is and rendered with a thread-safe message lookup.
/// The statics are the errnos some target of this package branches on, named as swift-system
/// names them.
package struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The C error number.
    package let rawValue: CInt

    /// Wraps a C error number.
    ///
    /// - Parameter rawValue: The number, as `errno` holds it or as `posix_spawn(3)` returns it.
    package init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// The calling thread's current `errno`.
    ///
    /// Read it immediately after the failing call, before anything else (even an allocation)
    /// can overwrite it; layer (a) of STYLE §11 does exactly that and nothing else should.
    package static var current: Errno { Errno(rawValue: errno) }

    /// The call was interrupted by a signal and may be retried.
    ///
    /// The corresponding C constant is `EINTR`.
    package static let interrupted = Errno(rawValue: EINTR)
    /// Nothing to do now on a non-blocking descriptor: a normal result, not a failure.
    ///
    /// The corresponding C constant is `EAGAIN` (the same value as `EWOULDBLOCK` on Linux).
    package static let wouldBlock = Errno(rawValue: EAGAIN)
    /// A netlink socket lost messages because its receive buffer overflowed.
    ///
    /// The corresponding C constant is `ENOBUFS`.
    package static let noBufferSpace = Errno(rawValue: ENOBUFS)
    /// A path or one of its parents does not exist.
    ///
    /// The corresponding C constant is `ENOENT`.
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// The path already exists.
    ///
    /// The corresponding C constant is `EEXIST`.
    package static let fileExists = Errno(rawValue: EEXIST)
    /// A path component is not a directory.
    ///
    /// The corresponding C constant is `ENOTDIR`.
    package static let notDirectory = Errno(rawValue: ENOTDIR)
    /// The descriptor is not open; from our own code this is a bug.
    ///
    /// The corresponding C constant is `EBADF`.
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    /// A pointer argument is invalid; from our own code this is always a bug.
    ///
    /// The corresponding C constant is `EFAULT`.
    package static let badAddress = Errno(rawValue: EFAULT)
    /// No such process (it has exited and been reaped).
    ///
    /// The corresponding C constant is `ESRCH`.
    package static let noSuchProcess = Errno(rawValue: ESRCH)
    /// The process has no child to wait for.
    ///
    /// The corresponding C constant is `ECHILD`.
    package static let noChildProcess = Errno(rawValue: ECHILD)
    /// The reading end of a pipe or socket is closed.
    ///
    /// The corresponding C constant is `EPIPE`.
    package static let brokenPipe = Errno(rawValue: EPIPE)
    /// The kernel or C library does not implement the call.
    ///
    /// The corresponding C constant is `ENOSYS`.
    package static let notImplemented = Errno(rawValue: ENOSYS)
    /// The operation needs a privilege (a capability) the process lacks.
    ///
    /// The corresponding C constant is `EPERM`.
    package static let notPermitted = Errno(rawValue: EPERM)
    /// File permissions, or a policy such as `ping_group_range`, forbid the access.
    ///
    /// The corresponding C constant is `EACCES`.
    package static let permissionDenied = Errno(rawValue: EACCES)
    /// The resource is in use: a netlink dump is already running on this socket.
    ///
    /// The corresponding C constant is `EBUSY`.
    package static let busy = Errno(rawValue: EBUSY)
    /// A non-blocking `connect(2)` has started and completes later.
    ///
    /// The corresponding C constant is `EINPROGRESS`.
    package static let inProgress = Errno(rawValue: EINPROGRESS)
    /// The kernel has no support for the address family (for example IPv6 disabled).
    ///
    /// The corresponding C constant is `EAFNOSUPPORT`.
    package static let addressFamilyNotSupported = Errno(rawValue: EAFNOSUPPORT)
    /// Nothing listens on the remote port.
    ///
    /// The corresponding C constant is `ECONNREFUSED`.
    package static let connectionRefused = Errno(rawValue: ECONNREFUSED)

    /// The C library's message for this number, such as `Resource temporarily unavailable`.
    ///
    /// Looked up with `strerror_r(3)`, because plain `strerror` may return a buffer that another
    /// thread overwrites.
    package var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        // Swift sees the XSI `strerror_r`, which fills the buffer and returns 0 on success.
        let result = buffer.withUnsafeMutableBufferPointer { strerror_r(rawValue, $0.baseAddress!, $0.count) }
        guard result == 0 else { return "Unknown error \(rawValue)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The number and its message: `(11) Resource temporarily unavailable`.
    package var description: String { "(\(rawValue)) \(message)" }

    /// Matches an error against this errno, so `catch Errno.wouldBlock` works.
    ///
    /// A `SystemCallError` matches when it carries this errno, so code can branch on the cause
    /// without unwrapping it.
    ///
    /// - Parameters:
    ///   - pattern: The errno to match, such as `Errno.wouldBlock`.
    ///   - error: The error thrown.
    /// - Returns: Whether `error` is, or wraps, `pattern`.
    package static func ~= (pattern: Errno, error: any Error) -> Bool {
        (error as? Errno) == pattern || (error as? SystemCallError)?.errno == pattern
    }
}
