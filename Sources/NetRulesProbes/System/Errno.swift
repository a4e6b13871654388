@preconcurrency import Glibc

/// A POSIX error number, such as `EACCES`, from a failed system call.
///
/// Catch the ones we branch on by name: `catch Errno.wouldBlock`.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The C error number.
    public let rawValue: CInt

    /// Wraps a C error number.
    public init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// The calling thread's current `errno`.
    static var current: Errno { Errno(rawValue: errno) }

    /// The C constant is `EINTR`.
    public static let interrupted = Errno(rawValue: EINTR)
    /// The C constant is `EAGAIN` (the same value as `EWOULDBLOCK` on Linux).
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// The C constant is `EACCES`.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// The C constant is `EPERM`.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// The C constant is `EINPROGRESS`.
    public static let inProgress = Errno(rawValue: EINPROGRESS)
    /// The C constant is `EAFNOSUPPORT`.
    public static let addressFamilyNotSupported = Errno(rawValue: EAFNOSUPPORT)
    /// The C constant is `EBADF`.
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// The C constant is `ECONNREFUSED`.
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)

    /// The C library's message for this number, looked up with the thread-safe `strerror_r`.
    public var message: String {
        var buffer = [CChar](repeating: 0, count: 128)
        guard strerror_r(rawValue, &buffer, buffer.count) == 0 else { return "Unknown error \(rawValue)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { "(\(rawValue)) \(message)" }

    /// Matches an error against this errno in `catch` patterns.
    public static func ~= (pattern: Errno, error: any Error) -> Bool {
        (error as? Errno) == pattern || (error as? SystemCallError)?.errno == pattern
    }
}
