import Foundation
import NetRulesCLI
import NetRulesTesting
import Testing

/// `netrules facts` with no rule files names each fact's source as the running daemon runs it
/// (issue 37, item 1): a daemon started with rules at a path of its own, `wifi: { source: none }`
/// and a plugin that provides `ssid` and `bssid`, whatever the default rule directory says.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct FactSourcesEndToEndTests {
    /// `netrules ARGUMENTS` in-process; its stdout, or a thrown error when it exits non-zero.
    static func facts(_ arguments: [String]) async throws -> String {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        // Wide enough that the table wraps no cell.
        let code = await NetRulesCommandLine.run(
            arguments: ["facts"] + arguments, stdout: out, stderr: err,
            environment: ["PATH": "/usr/bin:/bin", "COLUMNS": "1000"], loop: .testLoop)
        guard code == 0 else { throw TestError("facts \(arguments) exited \(code): \(err.text)") }
        return out.text
    }

    @Test func factsWithoutRuleFilesNameTheDaemonsSources() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            let rules = try testbed.write(
                """
                version: 1
                wifi: { source: none }
                observers:
                  - { name: wifi-test, command: ["\(wifi.script)"], provides: [ssid, bssid] }
                places:
                  office:
                    when: { ssid: XF-WORLD }
                rules:
                  - { name: at-office, when: { place: office }, do: [ { run: "true" } ] }

                """, to: "office-rules.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            let socket = ["--socket", testbed.path("control.sock")]
            try wifi.report(ssid: "XF-WORLD", bssid: "a4:2b:8c:92:47:3c")

            var rows: [[String: Any]] = []
            var document: [String: Any] = [:]
            func row(_ key: String) -> [String: Any]? { rows.first { $0["key"] as? String == key } }
            let deadline = ContinuousClock.now + .seconds(20)
            while true {
                let text = try await Self.facts(["--json"] + socket)
                document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                rows = document["facts"] as? [[String: Any]] ?? []
                if row("place")?["value"] as? String == "office" { break }
                guard ContinuousClock.now < deadline else { throw TestError("place never became office: \(rows)") }
                try await Task.sleep(for: pollInterval)
            }
            #expect(document["version"] as? Int == 1)
            #expect(document["sources_from"] as? String == "daemon")
            #expect(row("ssid")?["source"] as? String == "plugin wifi-test")
            #expect(row("bssid")?["source"] as? String == "plugin wifi-test")
            #expect(row("ssid")?["value"] as? String == "XF-WORLD")
            #expect(row("place")?["source"] as? String == "places")
            #expect(row("places.office")?["source"] as? String == "place office")
            #expect(row("places.office")?["value"] as? String == "here")
            // `wifi: { source: none }`: what the plugin does not provide, nothing built in reports.
            #expect(row("frequency")?["source"] as? String == "none (wifi: { source: none })")
            let keys = rows.compactMap { $0["key"] as? String }
            #expect(Set(keys).count == keys.count, "a key twice: \(keys)")

            let table = try await Self.facts(socket).split(separator: "\n").map {
                $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            }
            func line(_ key: String) -> [String]? { table.first { $0.first == key } }
            #expect(line("ssid")?.joined(separator: " ").contains("plugin wifi-test") == true, "\(table)")
            #expect(line("bssid")?.joined(separator: " ").contains("plugin wifi-test") == true, "\(table)")
            #expect(line("place")?.joined(separator: " ").contains(" places ") == true, "\(table)")
            #expect(line("places.office")?.joined(separator: " ").contains("place office") == true, "\(table)")
            let textKeys = table.dropFirst().compactMap(\.first)
            #expect(textKeys == keys, "the text lists the JSON's keys, once each")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
