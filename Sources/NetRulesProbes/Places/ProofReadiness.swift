@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Whether a place's proof could run on this machine now, found without contacting anyone: the
/// host's name resolved by the system's resolver (a literal address is taken as it is), and a
/// route to an address over the default route's interface, which is where the prober makes its
/// handshake. The route is the kernel's answer to a UDP `connect(2)`, which sends nothing.
package struct ProofReadiness: Sendable {
    /// The addresses the host resolved to, as text; empty when it did not resolve.
    package var addresses: [String]
    /// Why the host did not resolve; nil when it did.
    package var resolveProblem: String?
    /// The default route's interface; nil when there is no default route.
    package var interface: String?
    /// The first address a route leads to (over `interface`); nil when none does.
    package var routedAddress: String?
    /// Why no address could be routed to; nil when one could.
    package var routeProblem: String?

    /// Whether the proof can run here: the name resolves and a route leads to it.
    package var canRun: Bool { resolveProblem == nil && routedAddress != nil }

    /// Looks `proof` up on this machine (in the calling thread's network namespace).
    package static func check(_ proof: PlaceProof) -> ProofReadiness {
        var readiness = ProofReadiness(addresses: [], interface: DefaultRoute.interfaceName())
        var candidates: [sockaddr_storage] = []
        let lookup = sys_getaddrinfo(proof.host) { list -> Void in
            var entry = list
            while let info = entry?.pointee {
                if let address = info.ai_addr, info.ai_family == AF_INET || info.ai_family == AF_INET6 {
                    var storage = sockaddr_storage()
                    withUnsafeMutableBytes(of: &storage) { target in
                        target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen)))
                    }
                    candidates.append(storage)
                }
                entry = UnsafePointer(info.ai_next)
            }
        }
        if case .failure(let failure) = lookup {
            readiness.resolveProblem = failure.message
            return readiness
        }
        readiness.addresses = candidates.map(Self.text)
        guard let interface = readiness.interface else {
            readiness.routeProblem = "there is no default route, whose interface the proof is made over"
            return readiness
        }
        var problems: [String] = []
        for var candidate in candidates {
            let text = Self.text(candidate)
            switch Self.route(to: &candidate, port: proof.port, interface: interface) {
            case .success:
                readiness.routedAddress = text
                return readiness
            case .failure(let errno):
                problems.append("\(text): \(errno.message)")
            }
        }
        readiness.routeProblem = problems.isEmpty ? "it resolved to no address" : problems.joined(separator: "; ")
        return readiness
    }

    /// The kernel's route lookup for `address` over `interface`: a UDP socket bound to the
    /// interface (where the caller may; otherwise any) connected to it. Nothing is sent.
    private static func route(to address: inout sockaddr_storage, port: Int, interface: String) -> Result<
        Void, Errno
    > {
        let family = CInt(address.ss_family)
        let socketResult = sys_socket(family, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard case .success(let fd) = socketResult else { return socketResult.map { _ in () } }
        defer { _ = sys_close(fd) }
        // SO_BINDTODEVICE needs CAP_NET_RAW: without it the lookup uses any interface, which
        // still answers "no route" where there is none at all.
        _ = sys_setsockopt_bytes(fd, SOL_SOCKET, SO_BINDTODEVICE, Array(interface.utf8))
        let length: socklen_t
        if family == AF_INET {
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self) { $0[0].sin_port = in_port_t(port).bigEndian }
            }
        } else {
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self) { $0[0].sin6_port = in_port_t(port).bigEndian }
            }
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sys_connect(fd, $0, length) }
        }.map { _ in () }
    }

    /// An address as text (`IPAddress`'s spelling, as the facts write it).
    private static func text(_ address: sockaddr_storage) -> String {
        withUnsafeBytes(of: address) { raw -> String in
            if CInt(address.ss_family) == AF_INET {
                let inner = raw.load(as: sockaddr_in.self).sin_addr.s_addr
                return IPAddress.v4(UInt32(bigEndian: inner)).description
            }
            let inner = raw.load(as: sockaddr_in6.self).sin6_addr
            return IPAddress.v6(withUnsafeBytes(of: inner) { Array($0) }).description
        }
    }
}
