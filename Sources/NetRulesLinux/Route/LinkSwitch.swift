internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesSystem

/// Sets a link administratively up or down in a network namespace, as `ip link set IF up|down`
/// does but from this process: for `netrules-bench`, which times what follows a link change from
/// the instant the request leaves, without the start-up of an `ip` process in the measurement.
package enum LinkSwitch {
    /// What went wrong.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Sends RTM_NEWLINK for `interface` in the namespace at `namespacePath` and waits for the ack.
    /// - Returns: CLOCK_REALTIME in nanoseconds taken right before the request was sent (a clock
    ///   every process on the machine reads alike, so other processes' stamps compare with it).
    package static func set(_ interface: String, up: Bool, inNamespace namespacePath: String) async throws -> Int64 {
        try await DedicatedThread.spawnAndWait(name: "netrules-link", networkNamespace: namespacePath) {
            let index = if_nametoindex(interface)
            guard index != 0 else { throw Failure(description: "no interface '\(interface)' in \(namespacePath)") }
            let socket = try NetlinkSocket(protocol: NETLINK_ROUTE)
            defer { socket.close() }
            let request = RouteNetlinkRequest.setLink(index: Int32(index), up: up, sequence: 1)
            let sent = sys_realtimeNanoseconds()
            try socket.send(request)
            for _ in 0..<100 {
                guard try socket.waitReadable(wake: nil, timeout: .seconds(2)) else { break }
                guard case .messages(let messages) = try socket.receive() else { continue }
                for message in messages where message.sequence == 1 {
                    guard let code = message.errorCode else { continue }
                    guard code.rawValue == 0 else {
                        throw Failure(description: "RTM_NEWLINK for \(interface): \(code)")
                    }
                    return sent
                }
            }
            throw Failure(description: "no answer to RTM_NEWLINK for \(interface) within 2 s")
        }
    }
}
