/// An IPv4 or IPv6 address, parsed without the C library so the core stays portable.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6([UInt8])

    /// Parses `192.168.1.7`, `fe80::1`, `::ffff:10.0.0.1` or `fe80::1%eth0` (the zone is dropped).
    public init?(_ text: String) {
        let noZone = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        if let v4 = IPAddress.parseV4(noZone) {
            self = .v4(v4)
        } else if let v6 = IPAddress.parseV6(noZone) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    /// The address's bytes in network order.
    public var bytes: [UInt8] {
        switch self {
        case .v4(let v): [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        case .v6(let b): b
        }
    }

    /// Whether this is an IPv6 address.
    public var isV6: Bool {
        if case .v6 = self { return true }
        return false
    }

    /// The canonical text: a dotted quad, or IPv6 per RFC 5952 (lower case, longest zero run as `::`).
    public var description: String {
        switch self {
        case .v4:
            return bytes.map(String.init).joined(separator: ".")
        case .v6(let b):
            var groups: [UInt16] = []
            for i in stride(from: 0, to: 16, by: 2) { groups.append(UInt16(b[i]) << 8 | UInt16(b[i + 1])) }
            // RFC 5952: compress the longest run (length ≥ 2) of zero groups.
            var bestStart = -1
            var bestLength = 0
            var i = 0
            while i < 8 {
                if groups[i] == 0 {
                    var j = i
                    while j < 8 && groups[j] == 0 { j += 1 }
                    if j - i > bestLength && j - i >= 2 { (bestStart, bestLength) = (i, j - i) }
                    i = j
                } else {
                    i += 1
                }
            }
            func hex(_ range: Range<Int>) -> String {
                range.map { String(groups[$0], radix: 16) }.joined(separator: ":")
            }
            if bestStart < 0 { return hex(0..<8) }
            return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
        }
    }

    static func parseV4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                let octet = UInt8(part)
            else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }

    static func parseV6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":") else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseV4(piece) {
                    out.append(UInt16(v4 >> 16))
                    out.append(UInt16(v4 & 0xFFFF))
                } else {
                    guard (1...4).contains(piece.count), let g = UInt16(piece, radix: 16) else { return nil }
                    out.append(g)
                }
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        var all: [UInt16]
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard head.count == 8 else { return nil }
            all = head
        }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}

extension Substring {
    /// Splits on a multi-character separator (the core has no Foundation).
    func components(separatedBy separator: String) -> [Substring] {
        var result: [Substring] = []
        var rest = self[...]
        while let range = rest.firstRange(of: separator) {
            result.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        result.append(rest)
        return result
    }
}

/// An address block such as `10.0.0.0/8` or `fd00::/8`, or a local address with its prefix (`192.168.1.7/24`).
public struct CIDR: Hashable, Sendable, CustomStringConvertible {
    /// The address as written; for a block, its host bits are kept (`192.168.1.7/24` stays so).
    public let address: IPAddress
    /// The number of leading bits that name the block: 0…32 for IPv4, 0…128 for IPv6.
    public let prefixLength: Int

    /// Parses `ADDRESS/LENGTH`, or a bare address as a host block (`/32`, `/128`).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddress(String(parts[0])) else { return nil }
        let maxLength = address.isV6 ? 128 : 32
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maxLength).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = maxLength
        }
        self.address = address
    }

    /// Whether `other` lies inside this block.
    public func contains(_ other: IPAddress) -> Bool {
        guard other.isV6 == address.isV6 else { return false }
        let a = address.bytes
        let b = other.bytes
        var bits = prefixLength
        for i in 0..<a.count where bits > 0 {
            let take = min(8, bits)
            let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
            if a[i] & mask != b[i] & mask { return false }
            bits -= take
        }
        return true
    }

    /// `ADDRESS/LENGTH`, with the address in canonical form.
    public var description: String { "\(address)/\(prefixLength)" }
}
