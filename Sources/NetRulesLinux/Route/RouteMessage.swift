internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesCore

/// A route as an `RTM_NEWROUTE`/`RTM_DELROUTE` message describes it.
package struct RouteMessage: Hashable, Sendable {
    /// `AF_INET` or `AF_INET6`.
    var family: Int32
    /// The destination (`RTA_DST`); nil for a default route.
    var destination: IPAddress?
    /// `rtm_dst_len`: 0 for a default route.
    var destinationLength: Int
    /// `rtm_tos` (IPv4 only; part of an IPv4 route's identity).
    var typeOfService: UInt8
    /// The routing table (`RTA_TABLE`, else `rtm_table`); 254 is `RT_TABLE_MAIN`.
    var table: UInt32
    /// `rtm_type`: 1 is `RTN_UNICAST`.
    var type: UInt8
    /// The metric (`RTA_PRIORITY`); lower wins.
    var priority: UInt32
    /// The next hop (`RTA_GATEWAY`, or the first hop of `RTA_MULTIPATH`).
    var gateway: IPAddress?
    /// The output interface (`RTA_OIF`, or the first hop of `RTA_MULTIPATH`).
    var outputIndex: Int32?

    /// Whether this is a unicast default route in the main table: a candidate for `gateway`.
    var isMainDefault: Bool {
        destinationLength == 0 && table == UInt32(RT_TABLE_MAIN.rawValue) && type == UInt8(RTN_UNICAST)
    }

    /// What a route replaced with `NLM_F_REPLACE` shares with the route it replaces.
    var replacementKey: RouteKey {
        RouteKey(
            family: family, destination: destination, destinationLength: destinationLength,
            typeOfService: typeOfService, table: table, priority: priority, gateway: nil, outputIndex: nil)
    }

    /// The full identity: IPv6 keeps several routes that differ only in next hop, IPv4 (with `append`) too.
    var key: RouteKey {
        RouteKey(
            family: family, destination: destination, destinationLength: destinationLength,
            typeOfService: typeOfService, table: table, priority: priority, gateway: gateway,
            outputIndex: outputIndex)
    }

    /// Parses the body of a route message; nil for families other than IPv4/IPv6.
    package static func parse(_ payload: [UInt8]) -> RouteMessage? {
        guard let info = payload.readStruct(as: rtmsg.self) else { return nil }
        let family = Int32(info.rtm_family)
        guard family == AF_INET || family == AF_INET6 else { return nil }
        let attributes = NetlinkAttributes(
            payload, from: Int(CNetRulesLinux_NLMSG_ALIGN(UInt32(MemoryLayout<rtmsg>.size))))
        var gateway = attributes[Int32(RTA_GATEWAY.rawValue)].flatMap { IPAddress(family: family, bytes: $0) }
        var outputIndex: Int32? = attributes.integer(Int32(RTA_OIF.rawValue))
        if outputIndex == nil, let hops = attributes[Int32(RTA_MULTIPATH.rawValue)],
            let first = hops.readStruct(as: rtnexthop.self)
        {
            // `rtnexthop` is followed by its own attributes up to `rtnh_len`.
            outputIndex = first.rtnh_ifindex
            let end = min(hops.count, Int(first.rtnh_len))
            let start = Int(CNetRulesLinux_RTA_ALIGN(UInt32(MemoryLayout<rtnexthop>.size)))
            if end > start {
                let nested = NetlinkAttributes(Array(hops[start..<end]))
                gateway =
                    gateway ?? nested[Int32(RTA_GATEWAY.rawValue)].flatMap { IPAddress(family: family, bytes: $0) }
            }
        }
        return RouteMessage(
            family: family,
            destination: attributes[Int32(RTA_DST.rawValue)].flatMap { IPAddress(family: family, bytes: $0) },
            destinationLength: Int(info.rtm_dst_len),
            typeOfService: info.rtm_tos,
            table: attributes.integer(Int32(RTA_TABLE.rawValue)) ?? UInt32(info.rtm_table),
            type: info.rtm_type,
            priority: attributes.integer(Int32(RTA_PRIORITY.rawValue)) ?? 0,
            gateway: gateway,
            outputIndex: outputIndex
        )
    }
}

/// What identifies one route in the table.
struct RouteKey: Hashable, Sendable {
    var family: Int32
    var destination: IPAddress?
    var destinationLength: Int
    var typeOfService: UInt8
    var table: UInt32
    var priority: UInt32
    var gateway: IPAddress?
    var outputIndex: Int32?
}
