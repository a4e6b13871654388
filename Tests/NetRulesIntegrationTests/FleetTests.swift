import Foundation
import Glibc
import NetRulesCore
import NetRulesTesting
import Testing

/// Issue 25: the built daemon with `mqtt:` against a real mosquitto on a unix socket (reachable
/// from the test's network namespace): availability, the retained state and discovery config,
/// one event per firing, `status`, the clean stop's `offline` and the Will after SIGKILL.
@Suite(
    .timeLimit(.minutes(3)), .serialized,
    .enabled(
        if: Testbed.isAvailable && TestBroker.installed,
        "SKIPPED: needs root and mosquitto (apt-get install mosquitto mosquitto-clients)")
)
struct FleetTests {
    static func rules(_ wifi: WiFiPlugin, broker: TestBroker, id: String, in testbed: Testbed) -> String {
        """
        version: 1
        \(wifi.observersYAML)
        mqtt:
          broker: \(broker.url)
          client_id: \(id)
          keepalive: 15s
          publish: [ssid, network]
          discovery: { name: Test laptop }
        rules:
          - name: office
            when: { ssid: Office }
            do: [ { write: { path: \(testbed.path("office.txt")), content: "x" } } ]

        """
    }

    @Test func theDaemonPublishesStateEventsAndDiscoveryAndSaysOfflineWhenStopped() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(unixSocket: true)
            defer { broker.remove() }
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            let rules = try testbed.write(Self.rules(wifi, broker: broker, id: "e2e-1", in: testbed), to: "fleet.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            _ = try await retained(broker, "netrules/e2e-1/state", "the state with ssid Home", testbed) {
                $0.contains(#""ssid":"Home""#)
            }
            _ = try await retained(broker, "netrules/e2e-1/availability", "online", testbed) { $0.hasSuffix(" online") }

            // The discovery config passes Home Assistant's rules and names the rule.
            let config = try await retained(broker, "homeassistant/device/e2e-1/config", "the config", testbed) {
                !$0.isEmpty
            }
            let payload = try JSONValue.parse(Array(config.drop { $0 != " " }.dropFirst().utf8))
            #expect(
                HomeAssistantDiscoveryRules.problems(topic: "homeassistant/device/e2e-1/config", payload: payload) == []
            )
            #expect(payload.compact.contains(#""event_types":["office"]"#))

            // Home Assistant's birth message brings the config back after it was cleared.
            _ = try await TestBroker.run(
                "/usr/bin/mosquitto_pub",
                ["--unix", broker.socketPath!, "-t", "homeassistant/device/e2e-1/config", "-r", "-n"])
            #expect(try await broker.retained("homeassistant/device/e2e-1/config") == [])
            _ = try await TestBroker.run(
                "/usr/bin/mosquitto_pub", ["--unix", broker.socketPath!, "-t", "homeassistant/status", "-m", "online"])
            _ = try await retained(broker, "homeassistant/device/e2e-1/config", "the republished config", testbed) {
                $0.contains(#""event_types":["office"]"#)
            }

            // One event per firing, not retained.
            let events = try await broker.subscribe("netrules/e2e-1/event", count: 1)
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            let lines = try await events.wait()
            #expect(lines.count == 1)
            #expect(
                lines.first?.hasPrefix(#"netrules/e2e-1/event 0 {"event_type":"office","edge":"enter","time":""#)
                    == true)
            #expect(lines.first?.hasSuffix(#"","actions":["write"]}"#) == true)

            // status shows the connection.
            let status = try TestNamespace.shell(
                DaemonProcess.executable, "status", "--control-socket", testbed.path("control.sock"))
            #expect(status.contains("mqtt: connected to \(broker.url) as e2e-1, since 20"), "\(status)")

            #expect(try await testbed.stop(daemon) == .exited(0))
            #expect(try await broker.retained("netrules/e2e-1/availability") == ["netrules/e2e-1/availability offline"])
        }
    }

    @Test func theWillSaysOfflineAfterSIGKILL() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(unixSocket: true)
            defer { broker.remove() }
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            let rules = try testbed.write(Self.rules(wifi, broker: broker, id: "e2e-2", in: testbed), to: "fleet.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            _ = try await retained(broker, "netrules/e2e-2/availability", "online", testbed) { $0.hasSuffix(" online") }
            let killed = ContinuousClock.now
            daemon.killAndReap()
            // The broker sees the socket close and sends the Will at once; a link that merely went
            // silent would take 1.5 × keepalive (22.5 s at 15 s).
            _ = try await retained(broker, "netrules/e2e-2/availability", "the Will's offline", testbed) {
                $0.hasSuffix(" offline")
            }
            print("FleetTests: the Will arrived \(ContinuousClock.now - killed) after SIGKILL")
        }
    }

    /// The issue's outage: the broker stopped for 30 s while three firings publish QoS 1
    /// messages; started again, the daemon is back within 2 s, republishes its state, and every
    /// message arrives once, with its firing's id.
    @Test func aBrokerAwayFor30SecondsGetsEveryQoS1MessageOnceWithinTwoSecondsOfItsReturn() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(unixSocket: true, persistent: true)
            defer { broker.remove() }
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)
                mqtt:
                  broker: \(broker.url)
                  client_id: e2e-3
                  keepalive: 15s
                  publish: [ssid]
                  discovery: false
                rules:
                  - name: office
                    when: { ssid: Office }
                    on: [enter, exit]
                    do:
                      - mqtt: { topic: "fleet/{{rule}}/checkins", payload: "{{edge}} {{ssid}}", qos: 1 }

                """, to: "outage.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            _ = try await retained(broker, "netrules/e2e-3/availability", "online", testbed) { $0.hasSuffix(" online") }

            // A session the broker keeps across its restart: the daemon's messages wait in it
            // however soon after the restart the daemon connects (a subscriber started after the
            // restart could come after them).
            let session = "fleet-outage-test"
            _ = try await broker.subscribe("fleet/#", count: 1, seconds: 1, session: session).wait()
            broker.stop()
            let stopped = ContinuousClock.now
            let outbox = testbed.path("state/outbox")
            for (n, ssid) in ["Office", "Home", "Office"].enumerated() {
                try wifi.report(ssid: ssid, bssid: "11:11:11:11:11:11")
                try await eventually("\(n + 1) messages in the outbox", testbed) {
                    // No outbox directory yet means no message in it.
                    ((try? FileManager.default.contentsOfDirectory(atPath: outbox)) ?? []).filter {
                        $0.hasSuffix(".json")
                    }.count == n + 1
                }
            }
            try await Task.sleep(until: stopped + .seconds(30))

            try await broker.start()
            let returned = ContinuousClock.now
            let state = try await retained(broker, "netrules/e2e-3/availability", "online again", testbed) {
                $0.hasSuffix(" online")
            }
            let back = ContinuousClock.now - returned
            print("FleetTests: reconnected \(back) after the broker's return (\(state))")
            #expect(back <= .seconds(2))
            // The messages, in the session whether they were sent before this subscriber connected or after.
            let messages = try await broker.subscribe(
                "fleet/#", count: 3, seconds: 15, format: "%t %P %p", session: session)
            _ = try await retained(broker, "netrules/e2e-3/state", "the republished state", testbed) {
                $0.contains(#""ssid":"Office""#)
            }
            let lines = try await messages.wait()
            // `TOPIC firing-id:ID PAYLOAD`
            let fields = lines.map { $0.split(separator: " ", maxSplits: 2).map(String.init) }
            #expect(
                fields.map { $0.count == 3 ? "\($0[0]) \($0[2])" : $0.joined(separator: " ") } == [
                    "fleet/office/checkins enter Office", "fleet/office/checkins exit Home",
                    "fleet/office/checkins enter Office",
                ], "\(lines)\n\(testbed.logTail())")
            let ids = fields.compactMap { $0.count == 3 && $0[1].hasPrefix("firing-id:") ? $0[1] : nil }
            #expect(Set(ids).count == 3, "each message carries its own firing's id: \(lines)")
            // Delivered once: the outbox is empty and nothing more arrives.
            let again = try await broker.subscribe("fleet/#", count: 1, seconds: 2)
            #expect(try await again.wait() == [])
            #expect(
                ((try? FileManager.default.contentsOfDirectory(atPath: outbox)) ?? []).filter { $0.hasSuffix(".json") }
                    == [])
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}

/// Polls `condition` every 50 ms for up to 20 s.
private func eventually(_ what: String, _ testbed: Testbed, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw TestError("timed out waiting for \(what); log:\n\(testbed.logTail())")
}
