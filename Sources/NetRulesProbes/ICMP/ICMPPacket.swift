/// Pure functions that build ICMP echo requests and parse echo replies (RFC 792, RFC 4443).
///
/// No sockets here: the tests feed these functions bytes.
package enum ICMPPacket {
    /// ICMPv4 type 8 (`ICMP_ECHO` in `<netinet/ip_icmp.h>`, which Swift does not import).
    static let echoRequestV4: UInt8 = 8
    /// ICMPv4 type 0 (`ICMP_ECHOREPLY`).
    static let echoReplyV4: UInt8 = 0
    /// ICMPv6 type 128 (`ICMP6_ECHO_REQUEST` in `<netinet/icmp6.h>`).
    static let echoRequestV6: UInt8 = 128
    /// ICMPv6 type 129 (`ICMP6_ECHO_REPLY`).
    static let echoReplyV6: UInt8 = 129
    /// The ICMP header: type, code, checksum, identifier, sequence.
    static let headerLength = 8

    /// An echo reply's fields.
    package struct EchoReply: Equatable {
        var identifier: UInt16
        var sequence: UInt16
        var payload: [UInt8]
    }

    /// The Internet checksum (RFC 1071): the one's complement of the one's-complement sum of 16-bit words.
    static func checksum(_ bytes: some Collection<UInt8>) -> UInt16 {
        var sum: UInt32 = 0
        var iterator = bytes.makeIterator()
        while let high = iterator.next() {
            let low = iterator.next() ?? 0
            sum &+= UInt32(high) << 8 | UInt32(low)
        }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }

    /// An echo request.
    ///
    /// ICMPv4 carries its checksum; for ICMPv6 the field stays 0 because the checksum covers an
    /// IPv6 pseudo-header only the kernel knows, and the kernel fills it for both socket kinds.
    static func echoRequest(v6: Bool, identifier: UInt16, sequence: UInt16, payload: [UInt8]) -> [UInt8] {
        var packet: [UInt8] = [
            v6 ? echoRequestV6 : echoRequestV4, 0, 0, 0,
            UInt8(identifier >> 8), UInt8(identifier & 0xFF), UInt8(sequence >> 8), UInt8(sequence & 0xFF),
        ]
        packet += payload
        if !v6 {
            let sum = checksum(packet)
            packet[2] = UInt8(sum >> 8)
            packet[3] = UInt8(sum & 0xFF)
        }
        return packet
    }

    /// Parses an echo reply, or returns nil for anything else (requests, errors, foreign protocols).
    ///
    /// - Parameters:
    ///   - bytes: What the socket returned.
    ///   - v6: Whether it came from an ICMPv6 socket.
    ///   - includesIPHeader: True for raw IPv4 sockets, which deliver the IP header too.
    package static func parseEchoReply(_ bytes: some Collection<UInt8>, v6: Bool, includesIPHeader: Bool) -> EchoReply?
    {
        var packet = Array(bytes)[...]
        if includesIPHeader {
            guard let first = packet.first, first >> 4 == 4 else { return nil }
            let headerLength = Int(first & 0x0F) * 4
            // Byte 9 of the IPv4 header is the protocol: 1 is ICMP.
            guard headerLength >= 20, packet.count >= headerLength, packet[packet.startIndex + 9] == 1 else {
                return nil
            }
            packet = packet.dropFirst(headerLength)
        }
        guard packet.count >= headerLength else { return nil }
        let base = packet.startIndex
        guard packet[base] == (v6 ? echoReplyV6 : echoReplyV4), packet[base + 1] == 0 else { return nil }
        // The kernel checks ICMPv6 and datagram checksums; a raw IPv4 socket passes anything, so check it here.
        if includesIPHeader && checksum(packet) != 0 { return nil }
        return EchoReply(
            identifier: UInt16(packet[base + 4]) << 8 | UInt16(packet[base + 5]),
            sequence: UInt16(packet[base + 6]) << 8 | UInt16(packet[base + 7]),
            payload: Array(packet.dropFirst(headerLength)))
    }
}
