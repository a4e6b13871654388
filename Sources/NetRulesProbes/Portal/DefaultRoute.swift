@preconcurrency import Glibc
import NetRulesSystem

/// The interface of the IPv4 default route, from `/proc/thread-self/net/route`.
///
/// The file reflects the network namespace of the calling thread, so this must run where the
/// probe's socket will be made. The daemon's netlink observer knows the same thing; reading the
/// file keeps the probe self-contained and costs one small read per classification.
package enum DefaultRoute {
    package static func interfaceName(table path: String = "/proc/thread-self/net/route") -> String? {
        guard case .success(let fd) = sys_open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { _ = sys_close(fd) }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case .success(let count) = buffer.withUnsafeMutableBytes({ sys_read(fd, $0) }), count > 0 {
            contents += buffer[0..<count]
        }
        return interfaceName(routeTable: String(decoding: contents, as: UTF8.self))
    }

    /// Parses the table: the first route with destination and mask 0 whose flags say up (RTF_UP = 1).
    static func interfaceName(routeTable: String) -> String? {
        var best: (name: String, metric: Int)?
        for line in routeTable.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 8, fields[1] == "00000000", fields[7] == "00000000",
                let flags = Int(fields[3], radix: 16), flags & 1 == 1, let metric = Int(fields[6])
            else { continue }
            if best == nil || metric < best!.metric { best = (String(fields[0]), metric) }
        }
        return best?.name
    }
}
