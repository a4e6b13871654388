import Foundation
import Testing

/// `check` looks at a webhook's `ca_file` on this machine: missing is a warning, and exit stays 0.
@Suite(.timeLimit(.minutes(1)))
struct CheckCAFileTests {
    @Test func aMissingCAFileIsAWarningAndAReadableOneIsQuiet() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ca = directory.appendingPathComponent("ca.pem").path
        let rules = directory.appendingPathComponent("r.yaml")
        try """
        version: 1
        rules:
          - name: hook
            when: { ssid: Office }
            do:
              - webhook: { url: "https://checkin.corp.example/in", ca_file: \(ca) }

        """.write(to: rules, atomically: true, encoding: .utf8)
        let missing = await CommandTests.run("check", rules.path)
        #expect(missing.code == 0)
        #expect(missing.stderr.contains("warning: ca_file '\(ca)' does not exist"), "\(missing.stderr)")
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: ca, atomically: true, encoding: .utf8)
        let present = await CommandTests.run("check", rules.path)
        #expect(present.code == 0)
        #expect(present.stderr == "", "\(present.stderr)")
    }
}
