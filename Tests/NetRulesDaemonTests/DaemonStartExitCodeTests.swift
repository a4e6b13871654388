import Foundation
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon

/// `netrules run`'s exit status when its rules cannot be used at start (issue 24 item 5, STYLE §22).
@Suite(.timeLimit(.minutes(1)))
struct DaemonStartExitCodeTests {
    @Test func aMissingRuleFileExits66BeforeAnythingStarts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-start-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = CapturingLogSink()
        let options = DaemonOptions(
            loop: .testLoop, ruleFiles: [directory + "/missing.yaml"],
            paths: DaemonPaths(
                stateDirectory: directory + "/state", controlSocket: directory + "/control.sock",
                ruleDirectory: directory),
            environment: [:], logger: Logger(label: "test", level: .info, sink: log))
        #expect(await Daemon(options: options).run() == 66)
        #expect(
            log.records.contains { $0.message.contains("cannot read '\(directory)/missing.yaml'") },
            "\(log.records.map(\.message))")
    }
}
