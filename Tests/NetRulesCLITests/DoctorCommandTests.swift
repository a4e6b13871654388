import Foundation
import NetRulesCLI
import NetRulesTesting
import Testing

/// `netrules doctor` (issue 11, item 5), against a mocked NetworkManager where one is needed.
struct DoctorCommandTests {
    static func rules(_ body: String) throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = directory.appendingPathComponent("rules.yaml")
        try body.write(to: file, atomically: true, encoding: .utf8)
        return (directory, file.path)
    }

    static func checks(_ stdout: String) throws -> [String: [String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1)
        let checks = try #require(document["checks"] as? [[String: Any]])
        for check in checks {
            #expect(["ok", "warning", "error"].contains(check["status"] as? String ?? ""))
            #expect(check["detail"] is String)
            #expect(check.keys.contains("fix"))
        }
        return Dictionary(checks.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    static func run(_ arguments: [String], bus: String) async -> CommandTests.Outcome {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: arguments, stdout: out, stderr: err,
            environment: ["PATH": "/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": bus])
        return CommandTests.Outcome(code: code, stdout: out.text, stderr: err.text)
    }

    @Test func withoutNetworkManagerTheRulesNetworkManagerFactsAreErrors() async throws {
        let (directory, file) = try Self.rules(
            "version: 1\nrules:\n  - { name: r, when: { fact: { key: connection, equals: Office } }, do: [ { run: x } ] }\n"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await Self.run(
            ["doctor", file, "--json", "--state-dir", directory.path], bus: "unix:path=/nonexistent/bus")
        #expect(r.code == 1)
        let checks = try Self.checks(r.stdout)
        #expect(checks["networkmanager"]?["status"] as? String == "warning")
        #expect(checks["fact connection"]?["status"] as? String == "error")
        #expect(checks["state-dir"]?["status"] as? String == "ok")
    }

    @Test(.enabled(if: NetworkManagerMock.isAvailable, "\(NetworkManagerMock.unavailableReason)"))
    func withNetworkManagerOnTheBusItServesWiFiAndConnections() async throws {
        let mock = try NetworkManagerMock()
        defer { mock.stop() }
        let (directory, file) = try Self.rules(
            """
            version: 1
            rules:
              - { name: r, when: { all: [ { ssid: Office }, { fact: { key: vpn, equals: Work } } ] }, do: [ { run: x } ] }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await Self.run(["doctor", file, "--json", "--state-dir", directory.path], bus: mock.address)
        let checks = try Self.checks(r.stdout)
        #expect(checks["networkmanager"]?["status"] as? String == "ok")
        if checks["nl80211"]?["status"] as? String == "warning" {
            #expect((checks["wifi-source"]?["detail"] as? String)?.contains("NetworkManager") == true)
        }
        #expect(checks["facts"]?["status"] as? String == "ok", "\(checks)")
        #expect(r.code == 0, "\(r.stdout)")
    }
}
