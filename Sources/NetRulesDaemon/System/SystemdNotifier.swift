@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

/// Tells systemd about the daemon's state through the `$NOTIFY_SOCKET` protocol of sd_notify(3).
///
/// Implemented here rather than through libsystemd: the protocol is one `AF_UNIX` datagram of
/// newline-separated `KEY=VALUE` lines, sent to the socket named in `NOTIFY_SOCKET` (a path, or
/// an abstract-namespace name when it starts with `@`). Without `NOTIFY_SOCKET` (not started by
/// systemd, or not `Type=notify`) every call does nothing.
///
/// Order in the daemon: `ready(status:)` once the signal sources are registered and the first
/// rule set is loaded; `reloading()` when a `SIGHUP` reload starts, then `ready(status:)` again
/// when it ends (also when it failed and the old rules stay); `stopping()` when shutdown begins.
///
/// Sendable and stateless: each call opens, uses and closes its own socket, as sd_notify does;
/// the daemon sends a handful of messages in its lifetime.
package struct SystemdNotifier: Sendable, Equatable {
    /// Where the datagrams go.
    package enum Destination: Sendable, Equatable {
        /// A socket file, such as `/run/systemd/notify`.
        case path(String)
        /// A name in the abstract socket namespace (`NOTIFY_SOCKET=@name`), without the `@`.
        case abstract(String)
        /// A `NOTIFY_SOCKET` this implementation cannot use (such as `vsock:…`); sending fails.
        case unsupported(String)
    }

    /// The notification socket, or nil when `NOTIFY_SOCKET` is unset or empty.
    package let destination: Destination?

    /// Reads `NOTIFY_SOCKET` from `environment`.
    ///
    /// - Parameter environment: The process environment.
    package init(environment: [String: String]) {
        guard let value = environment["NOTIFY_SOCKET"], !value.isEmpty else {
            destination = nil
            return
        }
        if value.hasPrefix("/") {
            destination = .path(value)
        } else if value.hasPrefix("@") {
            destination = .abstract(String(value.dropFirst()))
        } else {
            destination = .unsupported(value)
        }
    }

    /// Whether notifications are sent anywhere.
    package var isEnabled: Bool { destination != nil }

    /// Sends `state`, newline-separated `KEY=VALUE` assignments, as one datagram.
    ///
    /// - Parameter state: For example `"READY=1\nSTATUS=Watching 3 rules"`.
    /// - Throws: `SystemCallError` when the datagram cannot be sent (the socket is gone, the path
    ///   is too long, `NOTIFY_SOCKET` is of an unsupported kind). Worth a warning in the log, not
    ///   a reason to stop: systemd then reports the unit as failing to start on its own.
    package func notify(_ state: String) throws(SystemCallError) {
        guard let destination, !state.isEmpty else { return }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        switch destination {
        case .path(let path): name = Array(path.utf8)
        // The abstract namespace is marked by a leading NUL byte in place of the `@`.
        case .abstract(let abstract): name = [0] + Array(abstract.utf8)
        case .unsupported: throw SystemCallError(call: "sendto", errno: Errno(rawValue: EAFNOSUPPORT))
        }
        // A path needs room for its terminating NUL; an abstract name has none and uses its exact length.
        let terminator = name.first == 0 ? 0 : 1
        guard !name.dropFirst().contains(0) else {
            throw SystemCallError(call: "sendto", errno: Errno(rawValue: EINVAL))
        }
        guard name.count + terminator <= MemoryLayout.size(ofValue: address.sun_path) else {
            throw SystemCallError(call: "sendto", errno: Errno(rawValue: ENAMETOOLONG))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + terminator)

        let fd = try sys_socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0).get(call: "socket")
        let socket = FileDescriptor(taking: fd)
        defer { socket.closeDiscardingError() }
        let payload = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                payload.withUnsafeBytes { bytes in
                    // MSG_NOSIGNAL: a vanished receiver must not raise SIGPIPE in the daemon.
                    sys_sendto(fd, bytes, CInt(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
        _ = try sent.get(call: "sendto")
    }

    /// `READY=1`, with an optional status line: start-up (or a reload) has finished.
    package func ready(status: String? = nil) throws(SystemCallError) {
        try notify("READY=1" + (status.map { "\nSTATUS=" + Self.singleLine($0) } ?? ""))
    }

    /// `RELOADING=1` with `MONOTONIC_USEC`, the CLOCK_MONOTONIC time in microseconds that
    /// `Type=notify-reload` units must send; follow it with `ready(status:)` when the reload ends.
    package func reloading() throws(SystemCallError) {
        try notify("RELOADING=1\nMONOTONIC_USEC=\(sys_monotonicMicroseconds())")
    }

    /// `STOPPING=1`: shutdown has begun.
    package func stopping() throws(SystemCallError) {
        try notify("STOPPING=1")
    }

    /// `STATUS=…`, the one-line text `systemctl status` shows.
    ///
    /// - Parameter text: The status; line breaks become spaces, as the protocol is line-based.
    package func status(_ text: String) throws(SystemCallError) {
        try notify("STATUS=" + Self.singleLine(text))
    }

    private static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
