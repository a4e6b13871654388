@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// An IPv4 or IPv6 socket address in the C layout, for `sendto`, `connect` and `recvfrom`.
struct SocketAddress: Sendable {
    private var storage = sockaddr_storage()
    private(set) var length: socklen_t

    /// An empty address for `recvfrom` to fill.
    init() {
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    }

    init(_ address: IPAddress, port: UInt16 = 0) {
        let bytes = address.bytes
        switch address {
        case .v4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: bytes) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: sin, as: sockaddr_in.self) }
        case .v6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: bytes) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: sin6, as: sockaddr_in6.self) }
        }
    }

    /// Copies a C address (from `getaddrinfo`).
    init?(_ pointer: UnsafePointer<sockaddr>, length: socklen_t) {
        guard length <= socklen_t(MemoryLayout<sockaddr_storage>.size) else { return nil }
        self.length = length
        withUnsafeMutableBytes(of: &storage) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: Int(length)))
        }
    }

    var isV6: Bool { storage.ss_family == sa_family_t(AF_INET6) }

    /// The IP address, or nil for another family.
    var ipAddress: IPAddress? {
        withUnsafeBytes(of: storage) { raw -> IPAddress? in
            switch CInt(storage.ss_family) {
            case AF_INET:
                let sin = raw.load(as: sockaddr_in.self)
                let bytes = withUnsafeBytes(of: sin.sin_addr) { Array($0) }
                return .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
            case AF_INET6:
                let sin6 = raw.load(as: sockaddr_in6.self)
                return .v6(withUnsafeBytes(of: sin6.sin6_addr) { Array($0) })
            default:
                return nil
            }
        }
    }

    /// The port (for ICMP datagram sockets: the echo identifier the kernel assigned).
    var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            isV6
                ? UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
                : UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
        }
    }

    func withSockAddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemCallError) -> T)
        throws(SystemCallError) -> T
    {
        var copy = storage
        return try withUnsafePointer(to: &copy) { pointer throws(SystemCallError) in
            try body(UnsafeRawPointer(pointer).assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    mutating func withMutableSockAddr<T>(_ body: (UnsafeMutablePointer<sockaddr>, inout socklen_t) -> T) -> T {
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            body(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: sockaddr.self), &len)
        }
        length = len
        return result
    }
}
