internal import CNetRulesLinux
import NetRulesSystem

/// One netlink message: the `nlmsghdr` fields and the bytes after the header.
///
/// Parsing is a pure function over bytes (STYLE §14), so the unit tests feed it fixtures.
package struct NetlinkMessage: Hashable, Sendable {
    /// `nlmsg_type`: `RTM_NEWLINK`, `NLMSG_DONE`, a generic netlink family id, …
    var type: UInt16
    /// `nlmsg_flags`: `NLM_F_MULTI`, `NLM_F_DUMP_INTR`, `NLM_F_REPLACE`, …
    var flags: UInt16
    /// `nlmsg_seq`: our request's sequence number in replies, 0 in multicast events.
    var sequence: UInt32
    /// `nlmsg_pid`: the sender's port id (0 for the kernel).
    var portID: UInt32
    /// The message body after the aligned header.
    package var payload: [UInt8]

    init(type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, portID: UInt32 = 0, payload: [UInt8]) {
        self.type = type
        self.flags = flags
        self.sequence = sequence
        self.portID = portID
        self.payload = payload
    }

    /// Whether the message says a dump was interrupted by a concurrent change (`NLM_F_DUMP_INTR`).
    var isDumpInterrupted: Bool { flags & UInt16(NLM_F_DUMP_INTR) != 0 }

    /// For `NLMSG_ERROR`: the errno it carries (0 is an acknowledgement), else nil.
    package var errorCode: Errno? {
        guard type == UInt16(NLMSG_ERROR), payload.count >= 4 else { return nil }
        let code: Int32 = payload.readInteger(at: 0)
        // The kernel sends a negated errno; Int32.min (from no kernel) must not trap on negation.
        return Errno(rawValue: 0 &- code)
    }

    /// Splits a datagram into messages, with the kernel's `NLMSG_OK`/`NLMSG_NEXT` bounds checks.
    ///
    /// A truncated trailing message is dropped, never read past.
    package static func parse(_ bytes: [UInt8]) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count >= MemoryLayout<nlmsghdr>.size else { return }
            var remaining = Int32(raw.count)
            let headerLength = Int(CNetRulesLinux_NLMSG_HDRLEN())
            var header = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: nlmsghdr.self)
            while CNetRulesLinux_NLMSG_OK(header, remaining) {
                let offset = UnsafeRawPointer(header) - base
                let length = Int(header.pointee.nlmsg_len)
                let body = Array(raw[(offset + headerLength)..<(offset + max(length, headerLength))])
                messages.append(
                    NetlinkMessage(
                        type: header.pointee.nlmsg_type, flags: header.pointee.nlmsg_flags,
                        sequence: header.pointee.nlmsg_seq, portID: header.pointee.nlmsg_pid, payload: body))
                header = CNetRulesLinux_NLMSG_NEXT(header, &remaining)
            }
        }
        return messages
    }

    /// The message as bytes on the wire: header, payload, padded to alignment.
    var encoded: [UInt8] {
        let headerLength = Int(CNetRulesLinux_NLMSG_HDRLEN())
        var out: [UInt8] = []
        out.appendInteger(UInt32(headerLength + payload.count))
        out.appendInteger(type)
        out.appendInteger(flags)
        out.appendInteger(sequence)
        out.appendInteger(portID)
        out += payload
        out.padToAlignment()
        return out
    }
}
