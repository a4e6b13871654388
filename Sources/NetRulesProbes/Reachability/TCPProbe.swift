@preconcurrency import Glibc
import NetRulesCore
import NetRulesHTTP
import NetRulesSystem

/// One TCP connection attempt: the probe for `name:port` hosts.
///
/// A completed handshake is success; a refusal is failure, because a rule that names a port
/// asks whether the service answers, not whether the machine is up. The attempt runs on the
/// blocking executor (a non-blocking `connect(2)` and a `poll(2)` bounded by the timeout).
enum TCPProbe {
    /// Connects to `address:port` and closes at once.
    ///
    /// - Returns: The handshake time, or the reason it failed.
    static func connect(
        to address: IPAddress, port: UInt16, timeout: Duration, executor: BlockingExecutor = .dedicatedThreads
    ) async -> Result<Duration, SystemCallError> {
        await executor.run { attempt(address, port: port, timeout: timeout) }
    }

    private static func attempt(_ address: IPAddress, port: UInt16, timeout: Duration) -> Result<
        Duration, SystemCallError
    > {
        let clock = ContinuousClock()
        let started = clock.now
        do throws(SystemCallError) {
            let socket = try FileDescriptor.socket(
                domain: address.isV6 ? AF_INET6 : AF_INET, type: CInt(SOCK_STREAM.rawValue), protocol: 0)
            defer { socket.closeDiscardingError() }
            try socket.withFileDescriptor { fd throws(SystemCallError) in
                let target = SocketAddress(address, port: port)
                let connected = try target.withSockAddr { pointer, length throws(SystemCallError) in
                    switch sys_connect(fd, pointer, length) {
                    case .success: return true
                    // An interrupted connect carries on asynchronously, like a non-blocking one.
                    case .failure(.inProgress), .failure(.interrupted): return false
                    case .failure(let errno): throw SystemCallError(call: "connect", errno: errno)
                    }
                }
                if connected { return }
                guard try waitReadable(fd, events: Int16(POLLOUT), wake: nil, deadline: started + timeout) == .ready
                else {
                    throw SystemCallError(call: "connect", errno: Errno(rawValue: ETIMEDOUT))
                }
                let error = try sys_getsockopt_int(fd, SOL_SOCKET, SO_ERROR).get(call: "getsockopt")
                if error != 0 { throw SystemCallError(call: "connect", errno: Errno(rawValue: error)) }
            }
            return .success(clock.now - started)
        } catch {
            return .failure(error)
        }
    }
}
