import Foundation
import NetRulesCLI
import NetRulesCore
import NetRulesTesting
import Testing

/// Issue 33, item 8: with `mqtt: commands: true`, Home Assistant pauses and resumes a rule. The
/// built daemon against a real mosquitto (unix socket): `OFF` on the rule's `set` topic pauses it
/// within 1 s, the retained state says so, the pause survives a restart and shows in `rules` and
/// `status`; a firing while paused is not run and is in the history; `ON` resumes it without a
/// stale firing. Without `commands: true` nothing more is subscribed.
@Suite(
    .timeLimit(.minutes(3)), .serialized,
    .enabled(
        if: Testbed.isAvailable && TestBroker.installed,
        "SKIPPED: needs root and mosquitto (apt-get install mosquitto mosquitto-clients)")
)
struct FleetCommandsTests {
    static func rules(_ wifi: WiFiPlugin, broker: TestBroker, id: String, commands: Bool, in testbed: Testbed)
        -> String
    {
        """
        version: 1
        \(wifi.observersYAML)
        mqtt:
          broker: \(broker.url)
          client_id: \(id)
          keepalive: 15s
          publish: [ssid]
          commands: \(commands)
        rules:
          - name: office
            when: { ssid: Office }
            do: [ { write: { path: \(testbed.path("office.txt")), content: "x", append: true } } ]

        """
    }

    /// Runs the CLI in this process against the daemon's control socket.
    static func cli(_ arguments: [String], _ testbed: Testbed) async -> (code: Int32, stdout: String) {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: arguments + ["--socket", testbed.path("control.sock")], stdout: out, stderr: err,
            environment: ["PATH": "/usr/bin:/bin", "TZ": "UTC"], loop: .testLoop)
        return (code, out.text + err.text)
    }

    /// Whether `rules --json` says the rule `office` is paused.
    static func officePaused(_ testbed: Testbed) async -> Bool? {
        let (code, out) = await cli(["rules", "--json"], testbed)
        guard code == 0 else { return nil }
        return out.contains(#""paused":{"by":"MQTT","#)
    }

    /// Polls `condition` every `pollInterval` until it holds; throws after 5 s (a failure guard).
    static func until(_ what: String, _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while await !condition() {
            guard ContinuousClock.now < deadline else { throw TestError("timed out waiting for \(what)") }
            try await Task.sleep(for: pollInterval)
        }
    }

    static func publish(_ broker: TestBroker, _ topic: String, _ payload: String) async throws {
        _ = try await TestBroker.run(
            "/usr/bin/mosquitto_pub", ["--unix", broker.socketPath!, "-t", topic, "-m", payload])
    }

    @Test func offPausesWithinASecondSurvivesARestartAndOnResumesWithoutAStaleFiring() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(unixSocket: true)
            defer { broker.remove() }
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            let rules = try testbed.write(
                Self.rules(wifi, broker: broker, id: "cmd-1", commands: true, in: testbed), to: "commands.yaml")
            var daemon = try await testbed.startDaemon(rules: [rules])
            let state = "netrules/cmd-1/rule/office/state"
            _ = try await retained(broker, state, "the switch's ON", testbed) { $0 == "\(state) ON" }

            // Home Assistant sees a switch per rule on the rule's own topics.
            let config = try await retained(broker, "homeassistant/device/cmd-1/config", "the config", testbed) {
                $0.contains(#""p":"switch""#)
            }
            let payload = try JSONValue.parse(Array(config.drop { $0 != " " }.dropFirst().utf8))
            #expect(
                HomeAssistantDiscoveryRules.problems(topic: "homeassistant/device/cmd-1/config", payload: payload) == []
            )
            #expect(payload.compact.contains(#""cmd_t":"netrules/cmd-1/rule/office/set""#))
            #expect(payload.compact.contains(#""name":"Rule office""#))

            // OFF pauses it within 1 s of the publication, and the retained state follows.
            let sent = ContinuousClock.now
            try await Self.publish(broker, "netrules/cmd-1/rule/office/set", "OFF")
            try await Self.until("rules to show office paused") { await Self.officePaused(testbed) == true }
            let took = ContinuousClock.now - sent
            print("FleetCommandsTests: OFF → paused in rules after \(took)")
            #expect(took < .seconds(1), "took \(took)")
            _ = try await retained(broker, state, "the switch's OFF", testbed) { $0 == "\(state) OFF" }

            // Anything else on the topic is ignored: the rule stays paused.
            try await Self.publish(broker, "netrules/cmd-1/rule/office/set", "on")
            try await Self.publish(broker, "netrules/cmd-1/rule/nobody/set", "ON")
            // The office while paused: not run, and the history says why.
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            _ = try await HistoryEndToEndTests.waitForFirings(
                ["--socket", testbed.path("control.sock")], "the skipped firing"
            ) { firings in
                firings.contains { ($0["dropped"] as? [String: Any])?["reason"] as? String == "paused" }
            }
            #expect(!FileManager.default.fileExists(atPath: testbed.path("office.txt")))
            #expect(await Self.officePaused(testbed) == true)

            // A restart keeps the pause: rules, status and the retained state, cleared while the
            // daemon was away, published again.
            #expect(try await testbed.stop(daemon) == .exited(0))
            _ = try await TestBroker.run(
                "/usr/bin/mosquitto_pub", ["--unix", broker.socketPath!, "-t", state, "-r", "-n"])
            daemon = try await testbed.startDaemon(rules: [rules])
            #expect(await Self.officePaused(testbed) == true)
            let status = await Self.cli(["status"], testbed)
            #expect(status.stdout.contains("\npaused: office (from MQTT at "), "\(status.stdout)")
            let table = await Self.cli(["rules"], testbed)
            #expect(table.stdout.contains("paused from MQTT at "), "\(table.stdout)")
            _ = try await retained(broker, state, "OFF again after the restart", testbed) { $0 == "\(state) OFF" }

            // ON resumes it within 1 s; the rule is already true, so nothing stale fires.
            let resumed = ContinuousClock.now
            try await Self.publish(broker, "netrules/cmd-1/rule/office/set", "ON")
            try await Self.until("rules to show office running") { await Self.officePaused(testbed) == false }
            #expect(ContinuousClock.now - resumed < .seconds(1))
            _ = try await retained(broker, state, "the switch's ON", testbed) { $0 == "\(state) ON" }
            // The next edge fires as usual.
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            try await eventually("the exit to reach the engine", timeout: .seconds(10)) {
                testbed.daemonFacts().contains(#""ssid":"Home""#)
            }
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            try await eventually("the office rule's write", timeout: .seconds(10)) {
                FileManager.default.fileExists(atPath: testbed.path("office.txt"))
            }
            #expect(try String(contentsOfFile: testbed.path("office.txt"), encoding: .utf8) == "x")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    @Test func withoutCommandsTrueNothingMoreIsSubscribedAndACommandDoesNothing() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(unixSocket: true)
            defer { broker.remove() }
            let wifi = try WiFiPlugin(in: testbed)
            try wifi.report(ssid: "Home", bssid: "11:11:11:11:11:11")
            let rules = try testbed.write(
                Self.rules(wifi, broker: broker, id: "cmd-2", commands: false, in: testbed), to: "plain.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            _ = try await retained(broker, "netrules/cmd-2/availability", "online", testbed) { $0.hasSuffix(" online") }
            let config = try await retained(broker, "homeassistant/device/cmd-2/config", "the config", testbed) {
                !$0.isEmpty
            }
            #expect(!config.contains(#""p":"switch""#))
            // The broker logs each subscription: Home Assistant's status, and nothing of the rules.
            try await eventually("the daemon's subscription in the broker's log") {
                broker.logText.contains("homeassistant/status (QoS 0)")
            }
            #expect(!broker.logText.contains("/rule/"), "\(broker.logText)")

            try await Self.publish(broker, "netrules/cmd-2/rule/office/set", "OFF")
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            try await eventually("the office rule's write", timeout: .seconds(10)) {
                FileManager.default.fileExists(atPath: testbed.path("office.txt"))
            }
            #expect(await Self.officePaused(testbed) == false)
            #expect(try await broker.retained("netrules/cmd-2/rule/#") == [])
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
