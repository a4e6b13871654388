@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization
import Testing

@testable import NetRulesLinux

@Suite(.enabled(if: NetworkNamespace.isAvailable, NetworkNamespace.unavailableReason))
struct CommandTests {
    /// A snapshot of a namespace with fixed MACs and addresses, and a resolv.conf that does not exist.
    private func snapshot() async throws -> NetworkSnapshot {
        try await NetworkNamespace.with { namespace in
            try namespace.batch([
                "link add v0 address 02:00:5e:00:53:10 type veth peer name v1 address 02:00:5e:00:53:11",
                "link set v0 up", "link set v1 up",
                "addr add 10.9.0.2/24 broadcast 10.9.0.255 dev v0",
                "addr add 2001:db8::2/64 dev v0 nodad",
                "route add default via 10.9.0.1",
                "neigh add 10.9.0.1 lladdr 02:00:5e:00:53:01 dev v0 nud permanent",
            ])
            return try await DedicatedThread.spawnAndWait(name: "test-snapshot", networkNamespace: namespace.path) {
                var snapshot = try NetworkSnapshot.current(resolvConf: "/nonexistent/resolv.conf")
                // v1's link-local address depends on DAD timing; keep the fixture stable.
                snapshot.interfaces = snapshot.interfaces.map {
                    var i = $0; i.ipv6 = i.ipv6.filter { !$0.hasPrefix("fe80") }; return i
                }
                return snapshot
            }
        }
    }

    @Test func statusTextShowsEveryFactAligned() async throws {
        let text = StatusCommand.renderText(try await snapshot())
        #expect(
            text == """
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

                """)
    }

    @Test func statusJSONUsesTheFactKeys() async throws {
        let json = StatusCommand.renderJSON(try await snapshot())
        #expect(
            json.hasPrefix(
                #"{"version":1,"facts":{"dns":[],"gateway":"10.9.0.1","gateway.mac":"02:00:5e:00:53:01","gateway6":null,"#
            ))
        #expect(
            json.contains(
                #""interfaces.v0":"up","interfaces.v1":"up","ip":["10.9.0.2/24","2001:db8::2/64"],"network":"wired"}"#))
        #expect(
            json.contains(
                #""v0":{"ipv4":[{"address":"10.9.0.2/24","broadcast":"10.9.0.255","netmask":"255.255.255.0"}],"ipv6":["2001:db8::2/64"],"mac":"02:00:5e:00:53:10","state":"up"}"#
            ))
        #expect(json.hasSuffix(#""state":"up"}}}"#))
    }
}

struct WatchCommandTests {
    @Test func printsInitialFactsAsJSONLinesAndStopsOnCancellation() async throws {
        let lines = Mutex<[String]>([])
        let (seen, seenContinuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            await WatchCommand.run(
                json: true,
                output: { line in
                    lines.withLock { $0.append(line) }
                    seenContinuation.yield()
                }, errorOutput: { _ in })
        }
        for await _ in seen where lines.withLock({ $0.contains { $0.contains(#""key":"interfaces.lo""#) } }) { break }
        task.cancel()
        #expect(await task.value == 0)
        let line = try #require(lines.withLock { $0.first { $0.contains(#""key":"interfaces.lo""#) } })
        #expect(line.hasPrefix(#"{"version":1,"key":"interfaces.lo","new":"up","at":""#))
        #expect(line.hasSuffix("Z\"}\n"))
    }

    @Test func textLinesShowOldAndNew() {
        let at = Wallclock(seconds: 3_723, milliseconds: 45)
        #expect(
            WatchCommand.line(text: .gateway, old: .text("10.0.0.1"), new: .absent, at: at)
                == "01:02:03.045  gateway  10.0.0.1 -> null\n")
        #expect(
            WatchCommand.line(json: .ssid, old: .unknown, new: .value(.bytes([0x41, 0xff])), at: at)
                == #"{"version":1,"key":"ssid","new":"A\\xff","at":"1970-01-01T01:02:03.045Z"}"# + "\n")
    }
}
