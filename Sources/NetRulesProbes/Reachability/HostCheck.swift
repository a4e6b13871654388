import NetRulesCore
import NetRulesHTTP
import NetRulesSystem

/// One round of probes against one host: resolve, then up to `tries` attempts until one succeeds.
///
/// ICMP echo for plain hosts, a TCP connection for `name:port` hosts. The host is unreachable
/// when every try fails (a lost packet, a send error, a refused or timed-out connection) or
/// when its name does not resolve within ``resolveTimeout``.
struct HostCheck: Sendable {
    /// The limit on resolving a DNS name, separate from the per-try timeout.
    static let resolveTimeout: Duration = .seconds(2)

    let pinger: ICMPPinger?
    let executor: BlockingExecutor
    /// The event loop whose timers space the tries.
    let loop: ThreadExecutor

    /// Whether `host` answered in this round.
    func isReachable(_ host: HostDefinition) async -> Bool {
        guard
            case .success(let addresses) = await Resolver.resolve(
                host.address, timeout: Self.resolveTimeout, on: loop, executor: executor),
            let address = addresses.first
        else { return false }
        for _ in 0..<max(1, host.tries) {
            if Task.isCancelled { return false }
            if await attempt(address, host: host) { return true }
        }
        return false
    }

    private func attempt(_ address: IPAddress, host: HostDefinition) async -> Bool {
        if let port = host.port {
            let started = QuietClock(loop: loop).now
            if case .success = await TCPProbe.connect(
                to: address, port: UInt16(port), timeout: host.timeout, executor: executor)
            {
                return true
            }
            // A refusal comes back at once; wait out the try so tries stay spaced by the timeout.
            // As below: a cancelled wait only ends the spacing early.
            try? await QuietClock(loop: loop).sleep(until: started + host.timeout)
            return false
        }
        guard let pinger else { return false }
        do {
            return try await pinger.ping(address, timeout: host.timeout) != nil
        } catch {
            // A send error (no route, link down) is also immediate; space the tries the same way.
            // A cancelled wait ends the check early, which is what cancellation asks; the result is
            // false either way.
            try? await QuietClock(loop: loop).sleep(for: host.timeout)
            return false
        }
    }
}
