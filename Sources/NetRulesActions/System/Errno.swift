@preconcurrency import Glibc

/// An error number, as a system call reports it in `errno`.
///
/// Code branches on the statics (`catch Errno.wouldBlock`); anything else is carried through
/// as its number and rendered with a thread-safe message lookup.
struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    var rawValue: CInt

    init(rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's current `errno`; read it immediately after the failing call.
    static var current: Errno { Errno(rawValue: errno) }

    /// The corresponding C constant is `EINTR`.
    static let interrupted = Errno(rawValue: EINTR)
    /// The corresponding C constant is `EAGAIN` (equal to `EWOULDBLOCK` on Linux).
    static let wouldBlock = Errno(rawValue: EAGAIN)
    /// The corresponding C constant is `ENOENT`.
    static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// The corresponding C constant is `EEXIST`.
    static let fileExists = Errno(rawValue: EEXIST)
    /// The corresponding C constant is `ESRCH`.
    static let noSuchProcess = Errno(rawValue: ESRCH)
    /// The corresponding C constant is `ECHILD`.
    static let noChildProcess = Errno(rawValue: ECHILD)
    /// The corresponding C constant is `EPIPE`.
    static let brokenPipe = Errno(rawValue: EPIPE)
    /// The corresponding C constant is `ENOSYS`.
    static let notImplemented = Errno(rawValue: ENOSYS)
    /// The corresponding C constant is `ENOTDIR`.
    static let notDirectory = Errno(rawValue: ENOTDIR)
    /// The corresponding C constant is `EACCES`.
    static let permissionDenied = Errno(rawValue: EACCES)

    /// The C library's message for this number, looked up with the thread-safe XSI `strerror_r`.
    var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard strerror_r(rawValue, &buffer, buffer.count) == 0 else { return "Unknown error \(rawValue)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var description: String { "(\(rawValue)) \(message)" }

    /// Lets `catch Errno.wouldBlock` and `case .interrupted` match any error that is this errno.
    static func ~= (pattern: Errno, error: any Error) -> Bool {
        (error as? Errno) == pattern || (error as? SystemCallError)?.errno == pattern
    }
}
