import Testing

@testable import NetRulesProbes

@Suite(.timeLimit(.minutes(1)))
struct ICMPPacketTests {
    @Test func checksumMatchesRFC1071Example() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2, so the checksum is 220d.
        #expect(ICMPPacket.checksum([0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]) == 0x220d)
        #expect(ICMPPacket.checksum([0xff]) == 0x00ff)
    }

    @Test func buildsV4EchoRequestWithChecksum() {
        let packet = ICMPPacket.echoRequest(v6: false, identifier: 0x1234, sequence: 0x0102, payload: [0xAA, 0xBB])
        // 0800 + 0000 + 1234 + 0102 + aabb = c5f1; its complement is 3a0e.
        #expect(packet == [8, 0, 0x3A, 0x0E, 0x12, 0x34, 0x01, 0x02, 0xAA, 0xBB])
        #expect(ICMPPacket.checksum(packet) == 0)
    }

    @Test func buildsV6EchoRequestLeavingChecksumToKernel() {
        let packet = ICMPPacket.echoRequest(v6: true, identifier: 7, sequence: 9, payload: [])
        #expect(packet == [128, 0, 0, 0, 0, 7, 0, 9])
    }

    @Test func parsesDatagramV4Reply() {
        let reply: [UInt8] = [0, 0, 0, 0, 0x12, 0x34, 0x00, 0x05, 1, 2, 3]
        let parsed = ICMPPacket.parseEchoReply(reply, v6: false, includesIPHeader: false)
        #expect(parsed == .init(identifier: 0x1234, sequence: 5, payload: [1, 2, 3]))
    }

    @Test func parsesRawV4ReplyAfterIPHeaderAndChecksIt() {
        var icmp: [UInt8] = [0, 0, 0, 0, 0xBE, 0xEF, 0x00, 0x2A, 0x6E, 0x72]
        let sum = ICMPPacket.checksum(icmp)
        icmp[2] = UInt8(sum >> 8)
        icmp[3] = UInt8(sum & 0xFF)
        // A 20-byte IPv4 header: version 4, IHL 5, protocol 1 (ICMP), 127.0.0.1 → 127.0.0.1.
        let ip: [UInt8] = [0x45, 0, 0, 30, 0, 0, 0x40, 0, 64, 1, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]
        let parsed = ICMPPacket.parseEchoReply(ip + icmp, v6: false, includesIPHeader: true)
        #expect(parsed == .init(identifier: 0xBEEF, sequence: 42, payload: [0x6E, 0x72]))
        var corrupted = ip + icmp
        corrupted[corrupted.count - 1] ^= 0xFF
        #expect(ICMPPacket.parseEchoReply(corrupted, v6: false, includesIPHeader: true) == nil)
    }

    @Test func parsesV6Reply() {
        let parsed = ICMPPacket.parseEchoReply([129, 0, 0x12, 0x34, 0, 1, 0, 2, 9], v6: true, includesIPHeader: false)
        #expect(parsed == .init(identifier: 1, sequence: 2, payload: [9]))
    }

    @Test(arguments: [
        [8, 0, 0, 0, 0, 1, 0, 1] as [UInt8],  // our own request, seen by a raw socket on loopback
        [3, 1, 0, 0, 0, 0, 0, 0],  // destination unreachable
        [0, 0, 0, 0, 0, 1],  // truncated
        [0, 5, 0, 0, 0, 1, 0, 1],  // a reply with a non-zero code
    ])
    func ignoresWhatIsNotAnEchoReply(bytes: [UInt8]) {
        #expect(ICMPPacket.parseEchoReply(bytes, v6: false, includesIPHeader: false) == nil)
    }

    @Test func ignoresRawPacketsOfOtherProtocols() {
        let udp: [UInt8] =
            [0x45, 0, 0, 28, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1] + [UInt8](repeating: 0, count: 8)
        #expect(ICMPPacket.parseEchoReply(udp, v6: false, includesIPHeader: true) == nil)
    }
}
