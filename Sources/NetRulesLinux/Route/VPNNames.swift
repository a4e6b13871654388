import NetRulesCore
import Synchronization

/// The `vpn` fact from the observers that see VPNs: the netlink observer's VPN interfaces
/// (`NetworkTable.vpnInterfaces`) and NetworkManager's VPN connections, as one list.
///
/// Each observer reports its own part through `reporter(wrapping:source:)`, which replaces `vpn`
/// in its updates with every source's part merged: NetworkManager's names first, then the
/// interfaces, each name once. A source whose part is unknown (NetworkManager not on the bus)
/// adds nothing; `vpn` is unknown only while no source knows. The merge and the hand-over happen
/// under one lock, so the last `vpn` delivered is always the merge of the latest parts, whichever
/// observer spoke last.
///
/// Thread-safe: observers on different threads share it.
package final class VPNNames: Sendable {
    /// Who reported a part.
    package enum Source: Hashable, Sendable, CaseIterable {
        /// NetworkManager's active VPN connections, by connection name.
        case networkManager
        /// The netlink observer's VPN interfaces, by interface name.
        case interfaces
    }

    /// The one the observers of this machine's own network (its namespace, its system bus) share;
    /// observers of another namespace or bus get their own.
    package static let shared = VPNNames()

    private let parts = Mutex<[Source: FactState]>([:])

    package init() {}

    /// The merged fact for `parts`.
    static func merged(_ parts: [Source: FactState]) -> FactState {
        var names: [FactValue] = []
        var known = false
        for source in Source.allCases {
            guard let part = parts[source] else { continue }
            switch part {
            case .unknown: continue
            case .absent: known = true
            case .value(let value):
                known = true
                let items: [FactValue] = if case .list(let list) = value { list } else { [value] }
                for item in items where !names.contains(item) { names.append(item) }
            }
        }
        return known ? .value(.list(names)) : .unknown
    }

    /// A reporter that hands `source`'s updates to `updates`, with `vpn` (when an update holds it)
    /// replaced by the merge of every source's latest part.
    package func reporter(wrapping updates: FactReporter, source: Source) -> FactReporter {
        FactReporter { [self] update in
            guard let part = update[.vpn] else { return updates.yield(update) }
            parts.withLock { parts in
                parts[source] = part
                var merged = update
                merged[.vpn] = VPNNames.merged(parts)
                // Under the lock: a later merge cannot overtake this one on the way to `updates`.
                updates.yield(merged)
            }
        }
    }
}
