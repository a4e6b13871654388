internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesSystem
import Synchronization

/// A netlink socket: the one owner of its file descriptor (STYLE §13).
///
/// Created non-blocking and close-on-exec; callers wait for readability with `poll`. Thread-safe
/// in the sense of `FileDescriptor`, but one reader at a time is assumed.
final class NetlinkSocket: Sendable {
    /// What one `receive()` produced.
    enum Reception: Sendable {
        /// The messages of one datagram.
        case messages([NetlinkMessage])
        /// Nothing queued: a normal result on a non-blocking socket, not an error.
        case wouldBlock
    }

    let descriptor: FileDescriptor
    /// Where `receive()` reads a datagram, kept for the socket's life: 32 KiB holds any dump chunk
    /// (the kernel sizes them to a page or to the buffer offered, up to 32 KiB). A new 32 KiB
    /// allocation for each message made malloc consolidate its free lists every time, a large part
    /// of the way from a link change to its action. Pages the kernel never wrote to stay untouched.
    private let receiveBuffer = Mutex(ReceiveBuffer())
    /// The port id the kernel assigned at `bind` (`nl_pid`); replies to our requests carry it.
    let portID: UInt32

    /// Opens and binds a netlink socket of `netlinkProtocol` (`NETLINK_ROUTE`, `NETLINK_GENERIC`).
    /// - Throws: `SystemCallError` from `socket` or `bind`.
    init(protocol netlinkProtocol: CInt) throws {
        let fd = try sys_socket(
            AF_NETLINK,
            CInt(SOCK_RAW.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
                | CInt(SOCK_NONBLOCK.rawValue), netlinkProtocol
        ).get(call: "socket")
        descriptor = FileDescriptor(taking: fd)
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        do {
            _ = try withUnsafePointer(to: &address) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try sys_bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)).get(call: "bind")
                }
            }
            var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
            _ = try withUnsafeMutablePointer(to: &address) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try sys_getsockname(fd, $0, &length).get(call: "getsockname")
                }
            }
        } catch {
            descriptor.closeDiscardingError()
            throw error
        }
        portID = address.nl_pid
    }

    /// Subscribes to a multicast group by number (`RTNLGRP_LINK`, an nl80211 group id, …).
    func join(group: UInt32) throws {
        try setOption(
            level: SOL_NETLINK, name: NETLINK_ADD_MEMBERSHIP, value: CInt(bitPattern: group), call: "setsockopt")
    }

    /// Sets the kernel's receive buffer. As root `SO_RCVBUFFORCE` lifts the `rmem_max` cap; a test
    /// also uses it to shrink the buffer until events overflow.
    func setReceiveBufferSize(_ bytes: Int) throws {
        do {
            try setOption(level: SOL_SOCKET, name: SO_RCVBUFFORCE, value: CInt(bytes), call: "setsockopt")
        } catch Errno.notPermitted {
            try setOption(level: SOL_SOCKET, name: SO_RCVBUF, value: CInt(bytes), call: "setsockopt")
        }
    }

    private func setOption(level: CInt, name: CInt, value: CInt, call: String) throws {
        _ = try descriptor.withFileDescriptor { fd in
            try sys_setsockopt(fd, level, name, value).get(call: call)
        }
    }

    /// Sends one message to the kernel.
    func send(_ message: NetlinkMessage) throws {
        let bytes = message.encoded
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        _ = try descriptor.withFileDescriptor { fd in
            try withUnsafePointer(to: &kernel) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    try bytes.withUnsafeBytes { buffer in
                        let result = sys_sendto(
                            fd, buffer, 0, address,
                            socklen_t(MemoryLayout<sockaddr_nl>.size))
                        return try result.get(call: "sendto")
                    }
                }
            }
        }
    }

    /// Receives one datagram.
    /// - Throws: `SystemCallError` — with `Errno.noBufferSpace` when the kernel dropped messages
    ///   because the receive buffer overflowed; the caller must then resynchronise.
    func receive() throws -> Reception {
        try receiveBuffer.withLock { receiveBuffer throws in
            let buffer = receiveBuffer.bytes
            let received: Int? = try descriptor.withFileDescriptor { fd in
                var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
                return try withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    let result = sys_recvmsg(fd, &message, 0)
                    if case .failure(.wouldBlock) = result { return nil }
                    return try result.get(call: "recvmsg")
                }
            }
            guard let received else { return .wouldBlock }
            let count = min(received, buffer.count)
            return .messages(NetlinkMessage.parse(Array(UnsafeRawBufferPointer(rebasing: buffer[..<count]))))
        }
    }

    /// Waits until the socket is readable, `wake` is signalled, or `timeout` passes.
    /// - Parameter timeout: nil for none.
    /// - Returns: true when readable, false after the timeout.
    /// - Throws: `CancellationError` when `wake` was signalled, or a `SystemCallError`.
    func waitReadable(wake: WakeEvent?, timeout: Duration? = nil) throws -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let outcome = try descriptor.withFileDescriptor { fd throws(SystemCallError) in
            try NetRulesSystem.waitReadable(fd, wake: wake, deadline: deadline)
        }
        if outcome == .woken { throw CancellationError() }
        return outcome == .ready
    }

    /// The buffer `receiveBuffer` guards; freed with the socket.
    private final class ReceiveBuffer {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 8)
        deinit { bytes.deallocate() }
    }

    /// Closes the socket; later operations throw `EBADF`.
    func close() {
        descriptor.closeDiscardingError()
    }
}
