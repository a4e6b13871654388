import NetRulesProbes

/// `icmp`: what an ICMP socket returned, as an echo reply from each kind of socket.
enum ICMPTarget {
    static func run(_ bytes: [UInt8]) {
        for v6 in [false, true] {
            for includesIPHeader in [false, true] {
                keep(ICMPPacket.parseEchoReply(bytes, v6: v6, includesIPHeader: includesIPHeader))
                // The socket layer hands over slices too; the parser must not assume index 0.
                keep(ICMPPacket.parseEchoReply(bytes.dropFirst(), v6: v6, includesIPHeader: includesIPHeader))
            }
        }
    }
}
