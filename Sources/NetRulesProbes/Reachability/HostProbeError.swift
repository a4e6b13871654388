import NetRulesCore

/// The host prober could not start: no ICMP socket for the hosts that need one. It names the
/// hosts (as the rules call them), so a log line says which `hosts.NAME` facts wait for it.
package struct HostProbeError: Error, CustomStringConvertible {
    /// The hosts probed by ICMP, by name.
    package var hosts: [String]
    /// Why the socket could not be opened (an `ICMPError` naming `net.ipv4.ping_group_range`).
    package var cause: any Error

    package var description: String {
        let list = hosts.map { "'\($0)'" }.joined(separator: ", ")
        return "cannot probe \(hosts.count == 1 ? "host" : "hosts") \(list) by ICMP: \(cause)"
    }
}
