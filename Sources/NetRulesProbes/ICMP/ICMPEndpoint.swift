@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// One open ICMP socket for one address family, and how replies on it are recognised.
struct ICMPEndpoint: Sendable {
    /// The kind of socket, as `ping -v` would say.
    enum Kind: String, Sendable {
        /// `socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)`: unprivileged, the kernel owns the identifier.
        case datagram
        /// `SOCK_RAW`: needs `CAP_NET_RAW`, sees every ICMP packet of the host.
        case raw
    }

    let socket: FileDescriptor
    let kind: Kind
    let v6: Bool
    /// The echo identifier replies carry: the kernel-assigned "port" of a datagram socket, or ours for raw.
    let identifier: UInt16

    /// Opens a datagram socket, or a raw one when datagram ICMP is not permitted.
    ///
    /// This is the order of Apple's SimplePing and iputils' ping: unprivileged first, so
    /// the program needs no privilege when the administrator allows datagram ICMP.
    static func open(v6: Bool) -> Result<ICMPEndpoint, ICMPError> {
        let domain = v6 ? AF_INET6 : AF_INET
        let proto = CInt(v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP)
        let datagramError: SystemCallError
        do {
            let socket = try FileDescriptor.socket(domain: domain, type: CInt(SOCK_DGRAM.rawValue), protocol: proto)
            // Binding to port 0 makes the kernel pick the identifier now, so we can check replies against it.
            let any: SocketAddress = v6 ? SocketAddress(.v6(Array(repeating: 0, count: 16))) : SocketAddress(.v4(0))
            var bound = SocketAddress()
            try socket.withFileDescriptor { fd throws(SystemCallError) in
                _ = try any.withSockAddr { address, length throws(SystemCallError) in
                    try sys_bind(fd, address, length).get(call: "bind")
                }
                _ = try bound.withMutableSockAddr { address, length in sys_getsockname(fd, address, &length) }.get(
                    call: "getsockname")
            }
            enlargeReceiveBuffer(socket)
            return .success(ICMPEndpoint(socket: socket, kind: .datagram, v6: v6, identifier: bound.port))
        } catch {
            datagramError = error
        }
        if datagramError.errno == .addressFamilyNotSupported {
            return .failure(
                ICMPError(code: .unavailable, message: "IPv\(v6 ? 6 : 4) is not available", cause: datagramError))
        }
        do {
            let socket = try FileDescriptor.socket(domain: domain, type: CInt(SOCK_RAW.rawValue), protocol: proto)
            enlargeReceiveBuffer(socket)
            return .success(ICMPEndpoint(socket: socket, kind: .raw, v6: v6, identifier: .random(in: 1...UInt16.max)))
        } catch {
            let message = """
                cannot open an ICMP socket: a datagram socket needs the process's group (\(getegid())) inside \
                net.ipv4.ping_group_range (now "\(currentPingGroupRange())"), and a raw socket needs CAP_NET_RAW \
                (\(error.errno.message)); widen it with: sysctl -w net.ipv4.ping_group_range="0 2147483647"
                """
            return .failure(ICMPError(code: .permissionDenied, message: message, cause: datagramError))
        }
    }

    /// Room for a burst of replies: 1,000 probes answered at once overflow the 208 KiB default.
    private static func enlargeReceiveBuffer(_ socket: FileDescriptor) {
        let size: CInt = 4 << 20
        // SO_RCVBUFFORCE passes net.core.rmem_max when privileged; otherwise take what rmem_max allows.
        // SO_RCVBUFFORCE needs CAP_NET_ADMIN; without it, fall back to SO_RCVBUF.
        if (try? socket.setOption(level: SOL_SOCKET, name: SO_RCVBUFFORCE, value: size)) == nil {
            // A smaller buffer only risks dropping replies of a large burst, which then count as
            // timeouts; rmem_max caps it anyway.
            try? socket.setOption(level: SOL_SOCKET, name: SO_RCVBUF, value: size)
        }
    }

    /// The sysctl's current value, for the error message ("1 0" means nobody).
    private static func currentPingGroupRange() -> String {
        let fd = Glibc.open("/proc/sys/net/ipv4/ping_group_range", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "unreadable" }
        defer { _ = sys_close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        // The range only decorates an error message; an unreadable sysctl reads as empty.
        let count = (try? buffer.withUnsafeMutableBytes { sys_read(fd, $0) }.get(call: "read")) ?? 0
        return String(decoding: buffer.prefix(count), as: UTF8.self)
            .split(whereSeparator: { $0 == "\t" || $0 == " " || $0 == "\n" }).joined(separator: " ")
    }
}
