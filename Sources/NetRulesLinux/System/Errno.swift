@preconcurrency import Glibc

/// A POSIX error number, as `errno` reports it.
///
/// Code that branches on an error writes `catch Errno.noBufferSpace` (see `~=`).
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The C value.
    public let rawValue: CInt

    /// Wraps a C error number.
    public init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// The corresponding C constant is `EINTR`.
    public static let interrupted = Errno(rawValue: EINTR)
    /// The corresponding C constant is `EAGAIN` (the same value as `EWOULDBLOCK` on Linux).
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// The corresponding C constant is `ENOBUFS`: a netlink socket lost messages.
    public static let noBufferSpace = Errno(rawValue: ENOBUFS)
    /// The corresponding C constant is `ENOENT`.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// The corresponding C constant is `EBADF`.
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// The corresponding C constant is `EFAULT`.
    public static let badAddress = Errno(rawValue: EFAULT)
    /// The corresponding C constant is `ECHILD`.
    public static let noChild = Errno(rawValue: ECHILD)
    /// The corresponding C constant is `EPERM`.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// The corresponding C constant is `EBUSY`: a netlink dump is already running on this socket.
    public static let busy = Errno(rawValue: EBUSY)

    /// The system's message for the error, looked up with the thread-safe `strerror_r`.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        // Swift sees the XSI `strerror_r`, which fills the buffer and returns 0 on success.
        let result = buffer.withUnsafeMutableBufferPointer { strerror_r(rawValue, $0.baseAddress!, $0.count) }
        guard result == 0 else { return "error \(rawValue)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Matches an error against this errno, so `catch Errno.wouldBlock` works.
    public static func ~= (lhs: Errno, rhs: any Error) -> Bool {
        if let errno = rhs as? Errno { return errno == lhs }
        if let failure = rhs as? SystemCallError { return failure.errno == lhs }
        return false
    }
}
