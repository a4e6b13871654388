import Foundation
import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

/// Issue 33: the fleet link on a bad day, with the built daemon in a namespace and the broker in
/// its peer (10.250.1.2): a broker that refuses, then the network changes and the real one is
/// back (the wedge); something on the broker's port that closes before CONNACK; a laptop whose
/// address and default route change under a live connection.
@Suite(
    .timeLimit(.minutes(4)), .serialized,
    .enabled(
        if: Testbed.isAvailable && TestBroker.installed,
        "SKIPPED: needs root and mosquitto (apt-get install mosquitto mosquitto-clients)")
)
struct FleetLinkTests {
    static let port = 18_830

    static func rules(
        _ wifi: WiFiPlugin, broker: String, id: String, keepalive: String = "15s", publish: String = "[ssid]",
        in testbed: Testbed
    ) -> String {
        """
        version: 1
        \(wifi.observersYAML)
        mqtt:
          broker: \(broker)
          client_id: \(id)
          keepalive: \(keepalive)
          publish: \(publish)
          discovery: false
        rules:
          - name: office
            when: { ssid: Office }
            do: [ { run: "true" } ]

        """
    }

    /// `netrules status` over the control socket, and how long it took.
    static func status(_ testbed: Testbed) throws -> (text: String, took: Duration) {
        let started = ContinuousClock.now
        let text = try TestNamespace.shell(
            DaemonProcess.executable, "status", "--control-socket", testbed.path("control.sock"))
        return (text, ContinuousClock.now - started)
    }

    /// The CPU time the process has used (utime + stime), from /proc.
    static func cpuTime(_ pid: pid_t) throws -> Duration {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // After the command's parenthesis: field 3 onwards; utime and stime are fields 14 and 15.
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        let ticks = Int(fields[11])! + Int(fields[12])!
        return .milliseconds(ticks * 1000 / Int(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The new user's wedge, replayed: connected at the office; at the fake office (another
    /// gateway) a broker at the same address refuses; back at the office the real broker returns.
    /// The link is connected within 3 s of the broker's return, `status` answers in < 200 ms
    /// throughout, SIGTERM stops the daemon in < 2 s, and the episode costs < 5 % of a core.
    @Test func theWedgeStepsEndConnectedWithTheLoopAnswering() async throws {
        try await Testbed.run { testbed in
            try testbed.peer.ip("addr", "add", "10.250.1.3/24", "dev", Testbed.peerLink)
            let address = (name: testbed.peer.name, address: Testbed.peerAddress)
            var office = try await TestBroker(namespace: address, port: Self.port)
            defer { office.remove() }
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            let rules = try testbed.write(
                Self.rules(wifi, broker: office.url, id: "wedge-1", in: testbed), to: "fleet.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await retained(office, "netrules/wedge-1/availability", "online", testbed) { $0.hasSuffix(" online") }
            let cpuBefore = try Self.cpuTime(daemon.pid)
            let episode = ContinuousClock.now

            // To the fake office: the state changes twice within the coalescing window just
            // before the connection goes, then another gateway, and a broker that refuses.
            try wifi.report(ssid: "Office-Guest", bssid: "22:22:22:22:22:22")
            try wifi.report(ssid: "XF-WORLD", bssid: "22:22:22:22:22:23")
            office.stop()
            let fake = try await TestBroker(users: ["someone": "else"], namespace: address, port: Self.port)
            try testbed.host.ip("route", "replace", "default", "via", "10.250.1.3")
            try await eventually("the refusal in the log", timeout: .seconds(20)) {
                testbed.log.contains("refused the connection")
            }
            var slowest = Duration.zero
            for _ in 0..<8 {
                let (_, took) = try Self.status(testbed)
                slowest = max(slowest, took)
                try await Task.sleep(for: .milliseconds(250))
            }

            // Back at the office, where the real broker has been all along: the route and the SSID.
            fake.remove()
            office = try await TestBroker(namespace: address, port: Self.port)
            let back = ContinuousClock.now
            try testbed.host.ip("route", "replace", "default", "via", Testbed.peerAddress)
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            try await retained(office, "netrules/wedge-1/availability", "online again", testbed) {
                $0.hasSuffix(" online")
            }
            let reconnected = ContinuousClock.now - back
            for _ in 0..<4 {
                let (text, took) = try Self.status(testbed)
                slowest = max(slowest, took)
                #expect(text.contains("mqtt: connected to \(office.url) as wedge-1"), "\(text)")
            }
            let cpu = try Self.cpuTime(daemon.pid) - cpuBefore
            let share =
                Double(cpu.components.seconds * 1000 + cpu.components.attoseconds / 1_000_000_000_000_000)
                / Double((ContinuousClock.now - episode).components.seconds * 1000 + 1)
            print(
                "FleetLinkTests: reconnected \(reconnected) after the broker's return; slowest status \(slowest); "
                    + "CPU \(cpu) over the episode (\(Int(share * 1000)) per mille)")
            #expect(reconnected < .seconds(3))
            #expect(slowest < .milliseconds(200))
            #expect(share < 0.05)
            let stopping = ContinuousClock.now
            #expect(try await testbed.stop(daemon) == .exited(0))
            #expect(ContinuousClock.now - stopping < .seconds(2))
        }
    }

    /// A "broker" that reads CONNECT and closes (a hotel's proxy), and a TLS listener reached with
    /// `mqtt://`: a handful of connections in 20 s, a log line that says why, and `status` with
    /// the reason and the next try.
    @Test(arguments: ["closes", "tls"])
    func somethingThatClosesBeforeCONNACKIsTriedAFewTimesAndNamed(_ kind: String) async throws {
        try await Testbed.run { testbed in
            let certificates = TemporaryDirectory("netrules-fleet-tls")
            defer { certificates.remove() }
            let counted = testbed.path("connections")
            var broker: TestBroker?
            defer { broker?.remove() }
            if kind == "closes" {
                let script = try testbed.write(
                    """
                    import socket
                    s = socket.socket()
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    s.bind(("\(Testbed.peerAddress)", \(Self.port)))
                    s.listen(16)
                    n = 0
                    while True:
                        c, _ = s.accept()
                        n += 1
                        open("\(counted)", "w").write(str(n))
                        c.recv(4096)
                        c.close()

                    """, to: "closer.py")
                let closer = try BackgroundProcess(
                    ["/usr/sbin/ip", "netns", "exec", testbed.peer.name, "/usr/bin/python3", script],
                    environment: [], log: testbed.path("closer.log"))
                defer { closer.stop(grace: .seconds(1)) }
                try await eventually("the closer listening", timeout: .seconds(10)) {
                    (try? TestNamespace.shell("ip", "netns", "exec", testbed.peer.name, "ss", "-ltn"))?
                        .contains(":\(Self.port)") == true
                }
                try await run(
                    testbed, counting: { Int((try? String(contentsOfFile: counted, encoding: .utf8)) ?? "0") ?? 0 })
            } else {
                let authority = try TestCertificateAuthority("broker", in: certificates.path)
                let server = try authority.issue(
                    "server", commonName: Testbed.peerAddress, subjectAltNames: ["IP:\(Testbed.peerAddress)"])
                let tls = try await TestBroker(
                    tls: (server.certificatePath, server.keyPath),
                    namespace: (testbed.peer.name, Testbed.peerAddress), port: Self.port)
                broker = tls
                try await run(
                    testbed, counting: { tls.logText.components(separatedBy: "Client connection from").count - 1 })
            }
        }

        func run(_ testbed: Testbed, counting: () -> Int) async throws {
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Hotel", bssid: "33:33:33:33:33:33")
            let rules = try testbed.write(
                Self.rules(wifi, broker: "mqtt://\(Testbed.peerAddress):\(Self.port)", id: "hotel-1", in: testbed),
                to: "fleet.yaml")
            let started = ContinuousClock.now
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await Task.sleep(until: started + .seconds(20))
            let connections = counting()
            print("FleetLinkTests (\(kind)): \(connections) connections in 20 s")
            // 0, 1, 3, 7 and 15 s: five; a tight loop made thousands. (mosquitto logs the first
            // failed TLS handshake of a client only, so the broker's count is a floor there.)
            #expect((1...6).contains(connections), "\(connections) connections in 20 s")
            #expect(
                testbed.log.contains("closed the connection before accepting it"),
                "the log says why: \(testbed.logTail())")
            let (text, _) = try Self.status(testbed)
            #expect(
                text.contains("retrying in ") && text.contains("closed the connection before accepting it")
                    && text.contains(" tries)"), "\(text)")
            // The daemon's own count of its attempts.
            let tries = text.split(separator: "(").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
            #expect((1...6).contains(tries), "\(text)")
            // doctor's own connection meets the same: it names it (and exits 1 for the error).
            let doctor = try TestNamespace.shell(
                "/bin/sh", "-c",
                "ip netns exec \(testbed.host.name) \(DaemonProcess.executable) doctor \(testbed.path("fleet.yaml")) "
                    + "2>&1; true")
            let words = doctor.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(
                words.contains(
                    "error mqtt: the broker mqtt://\(Testbed.peerAddress):\(Self.port) closed the connection before accepting it"
                ), "\(doctor)")
            #expect(words.contains("Fix: something at mqtt://"), "\(doctor)")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    /// A roam under a live connection (keepalive 60 s): the old address removed, a new one added,
    /// the default route replaced. A new connection comes from the new address, the new state
    /// reaches a subscriber within 3 s, and a firing 1 s after the change arrives once.
    @Test func aRoamReconnectsFromTheNewAddressWithinThreeSeconds() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(
                namespace: (testbed.peer.name, Testbed.peerAddress), port: Self.port)
            defer { broker.remove() }
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Home", bssid: "44:44:44:44:44:44")
            let rules = try testbed.write(
                Self.rules(
                    wifi, broker: broker.url, id: "roam-1", keepalive: "60s", publish: "[ssid, ip]", in: testbed),
                to: "fleet.yaml")
            // A secondary address stays when the primary goes (the kernel would drop both).
            try testbed.host.sysctl("net.ipv4.conf.\(Testbed.link).promote_secondaries", "1")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await retained(broker, "netrules/roam-1/state", "the state", testbed) { $0.contains("10.250.1.1/") }
            let roams = Int(ProcessInfo.processInfo.environment["NETRULES_ROAMS"] ?? "") ?? 2
            var took: [Duration] = []
            var from = Testbed.hostAddress
            for n in 0..<roams {
                let to = "10.250.1.\(10 + n)"
                // `%U`: when the subscriber got each message, to the nanosecond.
                let states = try await broker.subscribe(
                    "netrules/roam-1/state", count: 10, seconds: 4, format: "%U %p")
                let events = try await broker.subscribe("netrules/roam-1/event", count: 2, seconds: 5)
                let moved = realtimeNanoseconds()
                try testbed.host.ip("addr", "add", "\(to)/24", "dev", Testbed.link)
                try testbed.host.ip("addr", "del", "\(from)/24", "dev", Testbed.link)
                try testbed.host.ip("route", "replace", "default", "via", Testbed.peerAddress, "src", to)
                try await Task.sleep(for: .seconds(1))
                try wifi.report(ssid: n % 2 == 0 ? "Office" : "Home", bssid: "44:44:44:44:44:44")
                let received = try await states.wait()
                guard
                    let line = received.first(where: {
                        $0.contains("\"\(to)/24\"") && !$0.contains("\"\(from)/24\"")
                    }),
                    let stamp = line.split(separator: " ").first.map(String.init)
                else {
                    Issue.record("no state from \(to) within 4 s: \(received)\n\(testbed.logTail())")
                    return
                }
                let parts = stamp.split(separator: ".")
                let at =
                    Int64(parts[0])! * 1_000_000_000 + Int64(
                        parts[1].prefix(9).padding(toLength: 9, withPad: "0", startingAt: 0))!
                took.append(.nanoseconds(at - moved))
                let fired = try await events.wait()
                if n % 2 == 0 {
                    #expect(fired.count == 1, "the firing after roam \(n + 1) arrived once: \(fired)")
                }
                #expect(
                    broker.logText.contains("New connection from \(to)"),
                    "a new connection from \(to): \(broker.logText.suffix(600))")
                from = to
            }
            let sorted = took.sorted()
            print(
                "FleetLinkTests: roam → state over \(roams) roams: p50 \(sorted[sorted.count / 2]), "
                    + "p99 \(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))])")
            #expect(sorted.last! < .seconds(3), "\(took)")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
