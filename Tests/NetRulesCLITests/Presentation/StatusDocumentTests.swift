import NetRulesCore
import NetRulesLinux
import NetRulesTesting
import Testing

@testable import NetRulesCLI

@Suite(.timeLimit(.minutes(3)), .enabled(if: isRoot, "status namespace tests need root"))
struct StatusDocumentTests {
    /// A snapshot of a namespace with fixed MACs and addresses, and a resolv.conf that does not exist.
    private func snapshot() throws -> NetworkSnapshot {
        let namespace = try TestNamespace.create(prefix: "nrs")
        defer { namespace.delete() }
        try namespace.ip(
            "link", "add", "v0", "address", "02:00:5e:00:53:10", "type", "veth", "peer", "name", "v1", "address",
            "02:00:5e:00:53:11")
        try namespace.ip("link", "set", "v0", "up")
        try namespace.ip("link", "set", "v1", "up")
        try namespace.ip("addr", "add", "10.9.0.2/24", "broadcast", "10.9.0.255", "dev", "v0")
        try namespace.ip("addr", "add", "2001:db8::2/64", "dev", "v0", "nodad")
        try namespace.ip("route", "add", "default", "via", "10.9.0.1")
        try namespace.ip("neigh", "add", "10.9.0.1", "lladdr", "02:00:5e:00:53:01", "dev", "v0", "nud", "permanent")
        var snapshot = try namespace.perform { try NetworkSnapshot.current(resolvConf: "/nonexistent/resolv.conf") }
        // v1's link-local address depends on DAD timing; keep the fixture stable.
        snapshot.interfaces = snapshot.interfaces.map {
            var i = $0; i.ipv6 = i.ipv6.filter { !$0.hasPrefix("fe80") }; return i
        }
        return snapshot
    }

    @Test func statusTextShowsEveryFactAligned() async throws {
        let text = StatusDocument(try snapshot()).text
        #expect(
            text == """
                source: the system, read directly (no daemon)
                interfaces.lo  up  mac 00:00:00:00:00:00
                               inet  127.0.0.1/8  netmask 255.0.0.0
                               inet6 ::1/128
                interfaces.v1  up  mac 02:00:5e:00:53:11
                interfaces.v0  up  mac 02:00:5e:00:53:10
                               inet  10.9.0.2/24  netmask 255.255.255.0  broadcast 10.9.0.255
                               inet6 2001:db8::2/64
                ip             10.9.0.2/24, 2001:db8::2/64
                gateway        10.9.0.1 via v0
                gateway.mac    02:00:5e:00:53:01
                gateway6       none
                dns            none
                network        wired
                ssid           unknown (no Wi-Fi information from the kernel)
                bssid          unknown (no Wi-Fi information from the kernel)
                signal         unknown (no Wi-Fi information from the kernel)
                frequency      unknown (no Wi-Fi information from the kernel)
                interface      unknown (no Wi-Fi information from the kernel)
                vpn            none

                """)
    }

    @Test func statusJSONUsesTheFactKeys() async throws {
        let json = StatusDocument(try snapshot()).json.dropLast()
        #expect(
            json.hasPrefix(
                #"{"version":1,"facts":{"dns":[],"gateway":"10.9.0.1","gateway.mac":"02:00:5e:00:53:01","gateway6":null,"#
            ))
        #expect(
            json.contains(
                #""interfaces.v0":"up","interfaces.v1":"up","ip":["10.9.0.2/24","2001:db8::2/64"],"network":"wired","vpn":[]}"#
            ))
        #expect(
            json.contains(
                #""v0":{"ipv4":[{"address":"10.9.0.2/24","broadcast":"10.9.0.255","netmask":"255.255.255.0"}],"ipv6":["2001:db8::2/64"],"mac":"02:00:5e:00:53:10","state":"up"}"#
            ))
        #expect(json.hasSuffix(#""state":"up"}}}"#))
    }
}
