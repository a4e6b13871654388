import NetRulesProbes
import NetRulesTesting
import Testing

@testable import NetRulesCLI

@Suite(.timeLimit(.minutes(3)), .enabled(if: isRoot, "ping and portal tests need root"))
struct ProbeDocumentTests {
    @Test func pingCommandPrintsRepliesLossAndExitCode() async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        try network.client.ip("route", "add", "blackhole", "10.99.0.0/16")
        let pinger = try network.client.perform { try ICMPPinger(loop: .testLoop) }
        defer { pinger.close() }
        let lines = Lines()
        let errors = Lines()
        let status = await PingSubcommand.ping(
            hosts: [TestNetwork.serverAddress, "10.77.0.3"], count: 2, interval: .milliseconds(50),
            timeout: .milliseconds(200), json: false, pinger: pinger, loop: .testLoop, output: lines.append,
            errorOutput: errors.append)
        #expect(status == 0)
        let text = lines.all.joined(separator: "\n")
        #expect(text.contains("reply from 10.77.0.2: icmp_seq=1 time="))
        #expect(text.contains("no reply from 10.77.0.3: icmp_seq=2 timed out"))
        #expect(
            text.contains(
                "--- 10.77.0.2 ping statistics ---\n2 packets transmitted, 2 received, 0% packet loss\nrtt min/avg/max = "
            ))
        #expect(text.contains("2 packets transmitted, 0 received, 100% packet loss"))

        let json = Lines()
        let failed = await PingSubcommand.ping(
            hosts: ["10.99.0.1"], count: 1, interval: .milliseconds(50), timeout: .milliseconds(200), json: true,
            pinger: pinger, loop: .testLoop, output: json.append, errorOutput: errors.append)
        #expect(failed == 1)
        #expect(json.all.count == 2)
        #expect(
            json.all.first?.hasPrefix(#"{"version":1,"type":"error","host":"10.99.0.1","address":"10.99.0.1","seq":1"#)
                == true)
        // A request that could not be sent is an error, not a transmitted packet (issue 10, item 11).
        #expect(
            json.all.last
                == #"{"version":1,"type":"summary","host":"10.99.0.1","address":"10.99.0.1","transmitted":0,"received":0,"errors":1,"loss_percent":100}"#
        )
    }

    @Test func portalCommandPrintsEvidenceAsTextAndJSON() async throws {
        let server = try TestHTTPServer { _ in
            .response(status: 302, headers: [("Location", "http://127.0.0.1:9/login")])
        }
        defer { server.stop() }
        let lines = Lines()
        #expect(
            await PortalSubcommand.classify(
                urls: [server.url("/hotspot-detect.html")], json: false, loop: .testLoop, output: lines.append) == 2,
            "portal's verdict is its exit code: 2 for a portal")
        let text = lines.all.joined(separator: "\n")
        #expect(text.contains("connectivity: portal"))
        #expect(text.contains("portal.url: http://127.0.0.1:9/login"))
        #expect(text.contains("status 302, Location http://127.0.0.1:9/login"))

        let json = Lines()
        #expect(
            await PortalSubcommand.classify(
                urls: [server.url("/generate_204")], json: true, loop: .testLoop, output: json.append) == 2)
        #expect(json.all.count == 1)
        #expect(json.all[0].hasPrefix(#"{"version":1,"connectivity":"portal","portal.url":"http://127.0.0.1:9/login""#))
        #expect(json.all[0].contains(#""status":302"#))
    }
}

@Suite(.timeLimit(.minutes(1)))
struct JSONLineTests {
    @Test func jsonEscapesAndCarriesVersion() {
        var line = JSONLine()
        line["url"] = .string("http://x/\"a\"\n")
        line["time_ms"] = .milliseconds(.microseconds(1234))
        #expect(line.text == #"{"version":1,"url":"http://x/\"a\"\n","time_ms":1.234}"#)
    }
}
