import NetRulesCore
import NetRulesHTTP
import Synchronization

/// `netrules ping HOST… [-c COUNT] [-i INTERVAL] [-W TIMEOUT] [--json]`, as a library function.
///
/// Like ping(8): a line per reply with its sequence number and round-trip time, a line per
/// lost packet, and per host a summary with loss and min/avg/max. Several hosts are pinged at
/// once over the same socket. With `--json`, stdout carries JSON Lines: one object per reply
/// or timeout (`"type": "reply"` / `"timeout"` / `"error"`), then one `"summary"` per host.
public enum PingCommand {
    /// Pings `hosts` and prints the results.
    ///
    /// - Parameters:
    ///   - hosts: Names or addresses.
    ///   - count: Echo requests per host.
    ///   - interval: The pause between requests to one host.
    ///   - timeout: How long each request waits for its reply.
    ///   - json: Print JSON Lines instead of text.
    ///   - output: Receives each stdout line.
    ///   - errorOutput: Receives diagnostics (stderr); by default standard error.
    /// - Returns: 0 when any reply came, 1 otherwise (including when ICMP is not permitted).
    public static func run(
        hosts: [String], count: Int, interval: Duration, timeout: Duration, json: Bool,
        output: @escaping @Sendable (String) -> Void,
        errorOutput: @escaping @Sendable (String) -> Void = writeToStandardError
    ) async -> Int32 {
        let pinger: ICMPPinger
        do {
            pinger = try ICMPPinger()
        } catch {
            errorOutput("Error: \(error.message)")
            return 1
        }
        defer { pinger.close() }
        return await run(
            hosts: hosts, count: count, interval: interval, timeout: timeout, json: json, pinger: pinger,
            output: output, errorOutput: errorOutput)
    }

    /// Pings with a given pinger (tests pass one opened inside a namespace).
    package static func run(
        hosts: [String], count: Int, interval: Duration, timeout: Duration, json: Bool, pinger: ICMPPinger,
        output: @escaping @Sendable (String) -> Void, errorOutput: @escaping @Sendable (String) -> Void
    ) async -> Int32 {
        let summaries = await withTaskGroup(of: Summary.self) { group in
            for host in hosts {
                group.addTask {
                    await pingHost(
                        host, pinger: pinger, count: count, interval: interval, timeout: timeout, json: json,
                        output: output, errorOutput: errorOutput)
                }
            }
            return await group.reduce(into: [Summary]()) { $0.append($1) }
        }
        let order = Dictionary(hosts.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        for summary in summaries.sorted(by: { order[$0.host, default: 0] < order[$1.host, default: 0] }) {
            output(json ? summary.json : summary.text)
        }
        return summaries.contains { !$0.rtts.isEmpty } ? 0 : 1
    }

    struct Summary: Sendable {
        var host: String
        var address: IPAddress?
        var transmitted = 0
        /// Requests that could not be sent at all (`sendto` failed): not transmitted, but errors.
        var errors = 0
        var rtts: [Duration] = []

        var lossPercent: Int {
            transmitted == 0 ? 100 : (transmitted - rtts.count) * 100 / transmitted
        }

        var text: String {
            var lines = [
                "--- \(host) ping statistics ---",
                "\(transmitted) packets transmitted, \(rtts.count) received, "
                    + (errors > 0 ? "+\(errors) errors, " : "") + "\(lossPercent)% packet loss",
            ]
            if let min = rtts.min(), let max = rtts.max() {
                let avg = rtts.reduce(Duration.zero, +) / rtts.count
                lines.append(
                    "rtt min/avg/max = \(formatMilliseconds(min))/\(formatMilliseconds(avg))/\(formatMilliseconds(max)) ms"
                )
            }
            return lines.joined(separator: "\n")
        }

        var json: String {
            var line = JSONLine()
            line["type"] = .string("summary")
            line["host"] = .string(host)
            line["address"] = address.map { .string("\($0)") } ?? .null
            line["transmitted"] = .int(transmitted)
            line["received"] = .int(rtts.count)
            if errors > 0 { line["errors"] = .int(errors) }
            line["loss_percent"] = .int(lossPercent)
            if let min = rtts.min(), let max = rtts.max() {
                line["min_ms"] = .milliseconds(min)
                line["avg_ms"] = .milliseconds(rtts.reduce(Duration.zero, +) / rtts.count)
                line["max_ms"] = .milliseconds(max)
            }
            return line.text
        }
    }

    private static func pingHost(
        _ host: String, pinger: ICMPPinger, count: Int, interval: Duration, timeout: Duration, json: Bool,
        output: @escaping @Sendable (String) -> Void, errorOutput: @escaping @Sendable (String) -> Void
    ) async -> Summary {
        var summary = Summary(host: host)
        let resolved = await Resolver.resolve(host, timeout: HostCheck.resolveTimeout)
        guard case .success(let addresses) = resolved, let address = addresses.first else {
            if case .failure(let failure) = resolved { errorOutput("ping: \(host): \(failure)") }
            return summary
        }
        summary.address = address
        let clock = ContinuousClock()
        let start = clock.now
        // Requests go out every `interval` whatever the replies do, as ping(8) sends them.
        let results = await withTaskGroup(of: (Int, Duration?, Bool).self) { group in
            for sequence in 1...max(1, count) {
                group.addTask {
                    try? await Task.sleep(until: start + interval * (sequence - 1), clock: clock)
                    let line: String
                    let rtt: Duration?
                    var sent = true
                    do throws(ICMPError) {
                        rtt = try await pinger.ping(address, timeout: timeout)
                        line = event(
                            rtt == nil ? "timeout" : "reply", host: host, address: address, sequence: sequence,
                            rtt: rtt, message: nil, json: json)
                    } catch {
                        rtt = nil
                        sent = error.code != .sendFailed
                        line = event(
                            "error", host: host, address: address, sequence: sequence, rtt: nil,
                            message: error.message, json: json)
                    }
                    output(line)
                    return (sequence, rtt, sent)
                }
            }
            return await group.reduce(into: [(Int, Duration?, Bool)]()) { $0.append($1) }
        }
        summary.transmitted = results.filter(\.2).count
        summary.errors = results.count - summary.transmitted
        summary.rtts = results.sorted { $0.0 < $1.0 }.compactMap { $0.1 }
        return summary
    }

    private static func event(
        _ type: String, host: String, address: IPAddress, sequence: Int, rtt: Duration?, message: String?, json: Bool
    ) -> String {
        if json {
            var line = JSONLine()
            line["type"] = .string(type)
            line["host"] = .string(host)
            line["address"] = .string("\(address)")
            line["seq"] = .int(sequence)
            if let rtt { line["time_ms"] = .milliseconds(rtt) }
            if let message { line["message"] = .string(message) }
            return line.text
        }
        switch type {
        case "reply": return "reply from \(address): icmp_seq=\(sequence) time=\(formatMilliseconds(rtt ?? .zero)) ms"
        case "timeout": return "no reply from \(address): icmp_seq=\(sequence) timed out"
        default: return "error for \(address): icmp_seq=\(sequence) \(message ?? "")"
        }
    }
}
