@preconcurrency import Glibc
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesLinux

/// `vpn` from the netlink observer alone (no NetworkManager), against a real kernel in a
/// throwaway namespace. WireGuard is not in this kernel: a tun with a peer address stands in,
/// and `VPNInterfacesTests` covers WireGuard's `IFLA_INFO_KIND` from bytes.
@Suite(.timeLimit(.minutes(2)), .enabled(if: TestNamespace.isAvailable, namespacesUnavailableReason))
struct VPNNamespaceTests {
    /// Attaches to the persistent tun `name` in `namespace` as a VPN client does (open
    /// `/dev/net/tun`, `TUNSETIFF`), which gives it carrier; closing the descriptor takes it away.
    private func attachReader(to name: String, in namespace: TestNamespace) throws -> CInt {
        try namespace.perform {
            let fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { throw TestFailure("open /dev/net/tun: errno \(errno)") }
            // struct ifreq: the name (IFNAMSIZ, 16 bytes), then ifr_flags: IFF_TUN | IFF_NO_PI.
            var request = [UInt8](repeating: 0, count: 40)
            for (offset, byte) in name.utf8.enumerated() { request[offset] = byte }
            request[16] = 0x01
            request[17] = 0x10
            // TUNSETIFF = _IOW('T', 202, int) (linux/if_tun.h).
            let result = request.withUnsafeMutableBytes { ioctl(fd, UInt(0x4004_54CA), $0.baseAddress!) }
            guard result == 0 else {
                let code = errno
                close(fd)
                throw TestFailure("TUNSETIFF \(name): errno \(code)")
            }
            return fd
        }
    }

    @Test func anUpTunWithAPeerAddressIsListedWithinASecondAndGoesWhenDown() async throws {
        try await TestNamespace.with(prefix: "nrv") { namespace in
            try namespace.batch(["tuntap add dev tun0 mode tun", "addr add 10.9.0.1 peer 10.9.0.2 dev tun0"])
            let facts = ObservedFacts(LinuxNetworkObserver(loop: .testLoop, namespacePath: namespace.path))
            var reader: CInt = -1
            defer { if reader >= 0 { close(reader) } }
            do {
                try await facts.waitFor(.vpn, .value(.list([])))
                reader = try attachReader(to: "tun0", in: namespace)
                try namespace.ip(words: "link set tun0 up")
                let start = ContinuousClock.now
                let up = try await facts.waitFor(.vpn, .value(.list(["tun0"])), timeout: .seconds(1))
                #expect(ContinuousClock.now - start < .seconds(1))
                #expect(up[.interfaceState("tun0")] == .text("up"))
                // A tun has no link-layer address to resolve.
                #expect(up[.gatewayMAC] == .absent)

                try namespace.ip(words: "link set tun0 down")
                try await facts.waitFor(.vpn, .value(.list([])), timeout: .seconds(1))

                // Up again, then the client goes away: no carrier, not a VPN any more.
                try namespace.ip(words: "link set tun0 up")
                try await facts.waitFor(.vpn, .value(.list(["tun0"])), timeout: .seconds(1))
                close(reader)
                reader = -1
                try await facts.waitFor(.vpn, .value(.list([])), timeout: .seconds(2))
            } catch {
                try? await facts.stop()
                throw error
            }
            try await facts.stop()
        }
    }
}
