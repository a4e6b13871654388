import NetRulesCore
import NetRulesSystem

/// Sends ICMP echo requests to any number of hosts over one socket per address family.
///
/// Each family gets an unprivileged datagram socket when `net.ipv4.ping_group_range` allows
/// the process's group (it governs IPv6 too), else a raw socket when the process has
/// `CAP_NET_RAW`. One task (on the daemon's loop) receives every reply and matches it to its request by
/// identifier, sequence, a per-pinger token in the payload and the source address, so foreign
/// packets (other pingers on a raw socket, our own requests seen on loopback) are ignored.
/// Round-trip times come from the monotonic clock.
///
/// Thread-safe: share one pinger between all probes. Sockets belong to the network namespace
/// of the thread that creates the pinger.
package final class ICMPPinger: Sendable {
    private let receiver: EchoReceiver
    private let v4Failure: ICMPError?
    private let v6Failure: ICMPError?

    /// Opens the sockets.
    ///
    /// - Throws: ``ICMPError`` with code `permissionDenied` (naming `net.ipv4.ping_group_range`)
    ///   when no ICMP socket can be opened for IPv4 or IPv6.
    /// - Parameter loop: the event loop that receives the replies and times the requests out.
    package init(loop: ThreadExecutor) throws(ICMPError) {
        let v4 = ICMPEndpoint.open(v6: false)
        let v6 = ICMPEndpoint.open(v6: true)
        // A family that cannot be opened is reported by v4Failure/v6Failure below, and both failing
        // throws.
        let endpoints = [v4, v6].compactMap { try? $0.get() }
        if endpoints.isEmpty, case .failure(let error) = v4 { throw error }
        v4Failure = ICMPPinger.failure(v4)
        v6Failure = ICMPPinger.failure(v6)
        do {
            // Each family's failure is kept in v4Failure/v6Failure above and reported when that
            // family is pinged.
            receiver = try EchoReceiver(v4: try? v4.get(), v6: try? v6.get(), loop: loop)
        } catch {
            throw ICMPError(code: .unavailable, message: "cannot start the ICMP receiver: \(error)", cause: error)
        }
    }

    deinit {
        receiver.stop()
    }

    /// `datagram` or `raw`: which socket serves the family, or nil when none could be opened.
    package func socketKind(v6: Bool) -> String? {
        receiver.endpoint(v6: v6)?.kind.rawValue
    }

    /// Sends one echo request to `address` and waits for its reply.
    ///
    /// - Parameters:
    ///   - address: The target.
    ///   - timeout: How long to wait for the reply.
    /// - Returns: The round-trip time, or nil when no reply came within `timeout`.
    /// - Throws: ``ICMPError`` when the request could not be sent (no route, a blackhole
    ///   route, the link is down), the family has no socket, or the task was cancelled.
    package func ping(_ address: IPAddress, timeout: Duration) async throws(ICMPError) -> Duration? {
        guard let endpoint = receiver.endpoint(v6: address.isV6) else {
            throw (address.isV6 ? v6Failure : v4Failure)
                ?? ICMPError(code: .unavailable, message: "no ICMP socket for \(address)")
        }
        return try await receiver.ping(address, endpoint: endpoint, timeout: timeout)
    }

    /// Stops the receiver and closes the sockets; pending pings fail with `closed`.
    package func close() {
        receiver.stop()
    }

    private static func failure(_ result: Result<ICMPEndpoint, ICMPError>) -> ICMPError? {
        if case .failure(let error) = result { return error }
        return nil
    }
}
