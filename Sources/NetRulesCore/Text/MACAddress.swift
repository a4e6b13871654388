/// A 48-bit hardware address (a BSSID or a gateway's MAC), parsed the way people write them.
///
/// Accepted spellings: `a1:b2:c3:d4:e5:f6`, `A1-B2-C3-D4-E5-F6`, `a1 b2 c3 d4 e5 f6`,
/// `a1b2c3d4e5f6`, and octets with a dropped leading zero (`a1:b2:c3:d4:5:e6`), in any case.
/// The canonical form is lower-case and colon-separated, as the `bssid` fact is reported.
public struct MACAddress: Hashable, Sendable, CustomStringConvertible {
    /// The six octets.
    public let octets: [UInt8]

    /// Creates an address from six octets.
    public init?(octets: [UInt8]) {
        guard octets.count == 6 else { return nil }
        self.octets = octets
    }

    /// Parses any accepted spelling; nil when the text is not a MAC address.
    public init?(_ text: String) {
        let trimmed = text.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
        var scalars = String.UnicodeScalarView(trimmed)
        while scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        let separators: Set<Unicode.Scalar> = [":", "-", " ", "."]
        let hasSeparator = scalars.contains { separators.contains($0) }
        var octets: [UInt8] = []
        if hasSeparator {
            var group = ""
            var groups: [String] = []
            var lastWasSeparator = false
            for s in scalars {
                if separators.contains(s) {
                    // Runs of spaces count as one separator; a doubled ':' or '-' is an error.
                    if lastWasSeparator && s != " " { return nil }
                    if !lastWasSeparator { groups.append(group) }
                    group = ""
                    lastWasSeparator = true
                } else {
                    group.unicodeScalars.append(s)
                    lastWasSeparator = false
                }
            }
            groups.append(group)
            guard groups.count == 6 else { return nil }
            for g in groups {
                guard (1...2).contains(g.unicodeScalars.count), let byte = UInt8(g, radix: 16) else { return nil }
                octets.append(byte)
            }
        } else {
            let digits = Array(scalars)
            guard digits.count == 12 else { return nil }
            for i in stride(from: 0, to: 12, by: 2) {
                guard let byte = UInt8(String(String.UnicodeScalarView(digits[i..<i + 2])), radix: 16) else {
                    return nil
                }
                octets.append(byte)
            }
        }
        self.octets = octets
    }

    /// `a1:b2:c3:d4:05:e6`.
    public var description: String {
        octets.map(FactValue.hexByte).joined(separator: ":")
    }
}
