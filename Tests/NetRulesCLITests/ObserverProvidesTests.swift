import Foundation
import NetRulesCore
import Testing

/// `provides:` in a rule file: checked by `check`, and `facts` and `doctor` name the plugin as the
/// source of what it declares.
@Suite(.timeLimit(.minutes(1)))
struct ObserverProvidesTests {
    static func file(_ yaml: String) throws -> (path: String, directory: String) {
        let directory = ControlFixture.makeTemporaryDirectory()
        try yaml.write(toFile: directory + "/rules.yaml", atomically: true, encoding: .utf8)
        return (directory + "/rules.yaml", directory)
    }

    static let rules = """
        version: 1
        observers:
          - name: badge
            command: [/bin/true]
            provides: [ssid, badge.present]
        rules:
          - name: badged-in
            when: { all: [ { ssid: Office }, { fact: { key: badge.present, equals: "true" } } ] }
            do:
              - run: "true"
        """

    @Test func aMisspeltBuiltInFactIsRefusedWithTheFix() async throws {
        let (path, directory) = try Self.file(Self.rules.replacingOccurrences(of: "[ssid,", with: "[sssid,"))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = await CommandTests.run(["check", path], environment: [:])
        #expect(outcome.code == 65)
        #expect(outcome.stderr.contains("rules.yaml:5:16: error: 'sssid' is not a built-in fact"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("hint: did you mean 'ssid'?"))
    }

    @Test func factsAndDoctorNameThePluginAsTheSource() async throws {
        let (path, directory) = try Self.file(Self.rules)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = await CommandTests.run(
            ["facts", path, "--json", "--socket", directory + "/none.sock"], environment: [:])
        #expect(outcome.code == 0, "\(outcome.stderr)")
        let document = try JSONValue.parse(Array(outcome.stdout.utf8))
        guard case .array(let facts)? = document.member("facts") else {
            Issue.record("no facts in \(outcome.stdout)")
            return
        }
        func source(_ key: String) -> JSONValue? {
            facts.first { $0.member("key") == .string(key) }?.member("source")
        }
        #expect(source("ssid") == .string("plugin badge"))
        #expect(source("badge.present") == .string("plugin badge"))

        let doctor = await CommandTests.run(
            ["doctor", path, "--socket", directory + "/none.sock"], environment: [:])
        #expect(!doctor.stdout.contains("fact badge.present"), "\(doctor.stdout)")
        #expect(!doctor.stdout.contains("fact ssid:"), "\(doctor.stdout)")
    }
}
