import NetRulesCore
import NetRulesSystem

/// `ping` for several hosts at once over one pinger, as values: what `netrules ping` prints.
///
/// Like ping(8), requests to a host go out every `interval` whatever the replies do; each
/// request's outcome is reported as it happens, and each host's totals come back at the end.
package enum HostPing {
    /// What one echo request came to.
    package struct Event: Sendable {
        package enum Outcome: Sendable, Equatable {
            case reply(Duration)
            case timeout
            /// The request failed; `sent` is false when it never left (`sendto` failed).
            case error(String, sent: Bool)
        }

        package var host: String
        package var address: IPAddress
        package var sequence: Int
        package var outcome: Outcome
    }

    /// A host's totals.
    package struct Summary: Sendable {
        package var host: String
        /// The address pinged; nil when the name did not resolve.
        package var address: IPAddress?
        package var transmitted = 0
        /// Requests that could not be sent at all (`sendto` failed): not transmitted, but errors.
        package var errors = 0
        /// Round-trip times of the replies, in request order.
        package var rtts: [Duration] = []

        package var lossPercent: Int {
            transmitted == 0 ? 100 : (transmitted - rtts.count) * 100 / transmitted
        }
    }

    /// What a run reports while it runs.
    package enum Report: Sendable {
        case event(Event)
        /// A name that did not resolve, with the resolver's reason.
        case unresolved(host: String, reason: String)
    }

    /// Pings every host `count` times and returns their summaries in the order of `hosts`.
    /// - Parameter report: receives each request's outcome as it happens.
    package static func run(
        hosts: [String], count: Int, interval: Duration, timeout: Duration, pinger: ICMPPinger, loop: ThreadExecutor,
        report: @escaping @Sendable (Report) -> Void
    ) async -> [Summary] {
        let summaries = await withTaskGroup(of: Summary.self) { group in
            for host in hosts {
                group.addTask {
                    await ping(
                        host, pinger: pinger, loop: loop, count: count, interval: interval, timeout: timeout,
                        report: report)
                }
            }
            return await group.reduce(into: [Summary]()) { $0.append($1) }
        }
        let order = Dictionary(hosts.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        return summaries.sorted { order[$0.host, default: 0] < order[$1.host, default: 0] }
    }

    private static func ping(
        _ host: String, pinger: ICMPPinger, loop: ThreadExecutor, count: Int, interval: Duration, timeout: Duration,
        report: @escaping @Sendable (Report) -> Void
    ) async -> Summary {
        var summary = Summary(host: host)
        let resolved = await Resolver.resolve(host, timeout: HostCheck.resolveTimeout, on: loop)
        guard case .success(let addresses) = resolved, let address = addresses.first else {
            if case .failure(let failure) = resolved { report(.unresolved(host: host, reason: "\(failure)")) }
            return summary
        }
        summary.address = address
        let clock = ContinuousClock()
        let start = clock.now
        let results = await withTaskGroup(of: Event.self) { group in
            for sequence in 1...max(1, count) {
                group.addTask {
                    // Cancelled, the ping is sent at once and its own cancellation check ends it.
                    try? await Task.sleep(until: start + interval * (sequence - 1), clock: clock)
                    let outcome: Event.Outcome
                    do throws(ICMPError) {
                        outcome = try await pinger.ping(address, timeout: timeout).map { .reply($0) } ?? .timeout
                    } catch {
                        outcome = .error(error.message, sent: error.code != .sendFailed)
                    }
                    let event = Event(host: host, address: address, sequence: sequence, outcome: outcome)
                    report(.event(event))
                    return event
                }
            }
            return await group.reduce(into: [Event]()) { $0.append($1) }
        }
        summary.errors = results.filter { if case .error(_, sent: false) = $0.outcome { true } else { false } }.count
        summary.transmitted = results.count - summary.errors
        summary.rtts = results.sorted { $0.sequence < $1.sequence }.compactMap {
            if case .reply(let rtt) = $0.outcome { rtt } else { nil }
        }
        return summary
    }
}
