internal import CNetRulesLinux

/// The attributes of a netlink message body: `rtattr` (rtnetlink) and `nlattr` (generic netlink)
/// share one layout — a 16-bit length, a 16-bit type, then the payload padded to 4 bytes.
struct NetlinkAttributes: Hashable, Sendable {
    /// The message bytes the attributes are in, from `start` on. Attributes are found when asked
    /// for, not copied out one by one: a link message carries some fifty (statistics, per-family
    /// blobs), of which a reader wants three or four, on the way from a link change to its action.
    private let bytes: [UInt8]
    private let start: Int

    /// The attributes in `bytes` from `offset` on, up to the first malformed one.
    init(_ bytes: [UInt8], from offset: Int = 0) {
        self.bytes = bytes
        start = offset
    }

    /// Calls `body` with each well-formed attribute's type (the nested and byte-order flag bits
    /// removed) and payload range, in wire order, until it returns false.
    private func forEach(_ body: (UInt16, Range<Int>) -> Bool) {
        var position = start
        let header = Int(CNetRulesLinux_NLA_HDRLEN())
        while position + header <= bytes.count {
            let length = Int(bytes.readInteger(at: position, as: UInt16.self))
            let rawType: UInt16 = bytes.readInteger(at: position + 2)
            guard length >= header, position + length <= bytes.count else { return }
            // NLA_TYPE_MASK is a complement expression Swift cannot import; it strips these two flag bits.
            let type = rawType & ~UInt16(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
            guard body(type, (position + header)..<(position + length)) else { return }
            position += Int(CNetRulesLinux_NLA_ALIGN(Int32(length)))
        }
    }

    /// The attributes in wire order; types have the nested and byte-order flag bits removed.
    var entries: [(type: UInt16, value: [UInt8])] {
        var entries: [(type: UInt16, value: [UInt8])] = []
        forEach { type, range in
            entries.append((type, Array(bytes[range])))
            return true
        }
        return entries
    }

    /// The last value of an attribute type (the kernel sends each at most once in the messages we read).
    subscript(type: UInt16) -> [UInt8]? {
        var found: Range<Int>?
        forEach { candidate, range in
            if candidate == type { found = range }
            return true
        }
        return found.map { Array(bytes[$0]) }
    }

    /// Like the subscript, for a C constant.
    subscript(type: Int32) -> [UInt8]? { self[UInt16(type)] }

    /// A host-order integer attribute.
    func integer<T: FixedWidthInteger>(_ type: Int32, as: T.Type = T.self) -> T? {
        guard let value = self[type], value.count >= MemoryLayout<T>.size else { return nil }
        return value.readInteger(at: 0)
    }

    /// A NUL-terminated string attribute.
    func string(_ type: Int32) -> String? { self[type]?.cString }

    /// A nested attribute set.
    func nested(_ type: Int32) -> NetlinkAttributes? { self[type].map { NetlinkAttributes($0) } }

    static func == (lhs: NetlinkAttributes, rhs: NetlinkAttributes) -> Bool {
        lhs.entries.map(\.type) == rhs.entries.map(\.type) && lhs.entries.map(\.value) == rhs.entries.map(\.value)
    }

    func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.type)
            hasher.combine(entry.value)
        }
    }
}

/// Builds attributes for requests and test fixtures.
struct NetlinkAttributeWriter {
    private(set) var bytes: [UInt8] = []

    /// Appends one attribute with a raw payload.
    mutating func append(_ type: Int32, _ value: [UInt8]) {
        let header = Int(CNetRulesLinux_NLA_HDRLEN())
        bytes.appendInteger(UInt16(header + value.count))
        bytes.appendInteger(UInt16(type))
        bytes += value
        bytes.padToAlignment()
    }

    /// Appends an integer attribute in host order.
    mutating func append<T: FixedWidthInteger>(_ type: Int32, integer: T) {
        var value: [UInt8] = []
        value.appendInteger(integer)
        append(type, value)
    }

    /// Appends a NUL-terminated string attribute.
    mutating func append(_ type: Int32, string: String) {
        append(type, Array(string.utf8) + [0])
    }

    /// Appends a nested attribute set (with `NLA_F_NESTED` left clear, as the kernel's older families send it).
    mutating func append(_ type: Int32, nested: NetlinkAttributeWriter) {
        append(type, nested.bytes)
    }
}
