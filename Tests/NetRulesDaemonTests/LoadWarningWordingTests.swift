import Foundation
import NetRulesConfig
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon

/// What the daemon logs when its rules read a variable its environment does not set: its own
/// words, what breaks (an action, or the MQTT client for `mqtt: password:`) and how to fix it,
/// never `check`'s "check sees only its own environment".
@Suite(.timeLimit(.minutes(1)))
struct LoadWarningWordingTests {
    static let rules = """
        version: 1
        mqtt:
          broker: mqtt://127.0.0.1:1883
          password: "{{env.MQTT_PW}}"
        rules:
          - name: check-in
            when: { ssid: Office }
            do:
              - webhook:
                  url: "https://hr.example.com/check-in"
                  headers: { Authorization: "Bearer {{env.TOKEN}}" }

        """

    static let fix =
        "add %@=… to /etc/netrules/environment (mode 0600; for netrules-user.service, "
        + "~/.config/netrules/environment) and restart netrules: the daemon reads it only when it starts"

    @Test func theDaemonLogsItsOwnWordsForTheMQTTPasswordAndAnActionsSecret() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/nr-wording-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/rules.yaml"
        try Self.rules.write(toFile: file, atomically: true, encoding: .utf8)
        let log = CapturingLogSink()
        let options = DaemonOptions(
            loop: .testLoop, ruleFiles: [file],
            paths: DaemonPaths(
                stateDirectory: directory + "/state", controlSocket: directory + "/control.sock",
                ruleDirectory: directory),
            environment: ["PATH": "/usr/bin:/bin", "TOKEN": ""], logger: log.logger())
        let (result, _, _) = Daemon.load(options)
        #expect(result != nil)
        func hint(_ name: String) -> String { Self.fix.replacingOccurrences(of: "%@", with: name) }
        #expect(
            log.messages == [
                "\(file):4:13: warning: MQTT_PW, the password of mqtt:, is not set in the daemon's environment: "
                    + "the MQTT client cannot log in to the broker and is not started (hint: \(hint("MQTT_PW")))",
                "\(file):11:45: warning: TOKEN is empty in the daemon's environment: an action that reads it fails "
                    + "and sends or runs nothing (hint: \(hint("TOKEN")))",
            ])
        #expect(!log.messages.joined().contains("check"))
    }

    /// `check` beside the daemon says what the daemon would do, and that it sees only its own
    /// environment; for the password, the MQTT client's words too.
    @Test func checkSaysTheMQTTClientCannotLogInAndThatItSeesOnlyItsOwnEnvironment() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/nr-wording-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/rules.yaml"
        try Self.rules.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try RuleFiles.load([file], environment: ["TOKEN": "t"])
        let lines = result.diagnostics.map { "\($0.message) (hint: \($0.hint ?? ""))" }
        #expect(
            lines == [
                "MQTT_PW is not set in this environment; the daemon reads its environment from the systemd unit's "
                    + "EnvironmentFile=-/etc/netrules/environment (netrules.service), and where MQTT_PW is unset or "
                    + "empty the MQTT client cannot log in to the broker and is not started (hint: add MQTT_PW=… to "
                    + "/etc/netrules/environment (mode 0600; for netrules-user.service, "
                    + "~/.config/netrules/environment); check sees only its own environment)"
            ])
    }
}
