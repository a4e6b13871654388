import NetRulesCore
import NetRulesProbes

/// `ping`'s lines, as text and JSON Lines: one per reply, timeout or error, then one summary a host.
enum PingDocument {
    /// `reply from ADDRESS: icmp_seq=N time=T ms`, `no reply …`, `error for …`.
    static func text(_ event: HostPing.Event) -> String {
        switch event.outcome {
        case .reply(let rtt):
            "reply from \(event.address): icmp_seq=\(event.sequence) time=\(formatMilliseconds(rtt)) ms"
        case .timeout: "no reply from \(event.address): icmp_seq=\(event.sequence) timed out"
        case .error(let message, _):
            "error for \(event.address): icmp_seq=\(event.sequence) " + TerminalText.escaped(message)
        }
    }

    /// `{"version":1,"type":"reply","host":…,"address":…,"seq":N,"time_ms":T}` (`timeout`, `error` with `message`).
    static func json(_ event: HostPing.Event) -> String {
        var line = JSONLine()
        switch event.outcome {
        case .reply: line["type"] = .string("reply")
        case .timeout: line["type"] = .string("timeout")
        case .error: line["type"] = .string("error")
        }
        line["host"] = .string(event.host)
        line["address"] = .string("\(event.address)")
        line["seq"] = .int(event.sequence)
        if case .reply(let rtt) = event.outcome { line["time_ms"] = .milliseconds(rtt) }
        if case .error(let message, _) = event.outcome { line["message"] = .string(message) }
        return line.text
    }

    /// ping(8)'s statistics: the header, transmitted/received/loss and min/avg/max when any reply came.
    static func text(_ summary: HostPing.Summary) -> String {
        var lines = [
            "--- \(TerminalText.escaped(summary.host)) ping statistics ---",
            "\(summary.transmitted) packets transmitted, \(summary.rtts.count) received, "
                + (summary.errors > 0 ? "+\(summary.errors) errors, " : "") + "\(summary.lossPercent)% packet loss",
        ]
        if let min = summary.rtts.min(), let max = summary.rtts.max() {
            let avg = summary.rtts.reduce(Duration.zero, +) / summary.rtts.count
            lines.append(
                "rtt min/avg/max = \(formatMilliseconds(min))/\(formatMilliseconds(avg))/\(formatMilliseconds(max)) ms")
        }
        return lines.joined(separator: "\n")
    }

    /// `{"version":1,"type":"summary","host":…,"address":…,"transmitted":N,"received":N,…}`.
    static func json(_ summary: HostPing.Summary) -> String {
        var line = JSONLine()
        line["type"] = .string("summary")
        line["host"] = .string(summary.host)
        line["address"] = summary.address.map { .string("\($0)") } ?? .null
        line["transmitted"] = .int(summary.transmitted)
        line["received"] = .int(summary.rtts.count)
        if summary.errors > 0 { line["errors"] = .int(summary.errors) }
        line["loss_percent"] = .int(summary.lossPercent)
        if let min = summary.rtts.min(), let max = summary.rtts.max() {
            line["min_ms"] = .milliseconds(min)
            line["avg_ms"] = .milliseconds(summary.rtts.reduce(Duration.zero, +) / summary.rtts.count)
            line["max_ms"] = .milliseconds(max)
        }
        return line.text
    }
}
