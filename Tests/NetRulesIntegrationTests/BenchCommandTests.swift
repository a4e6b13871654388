import Foundation
import NetRulesCore
import NetRulesTesting
import Testing

/// `netrules bench daemon`, run as a user would (the built binary, as root): it measures both
/// sides on every link change, prints its JSON document, and leaves no namespace or process
/// behind. Its figures are not asserted: benchmarks are measured, not tested (README).
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct BenchCommandTests {
    @Test(.timeLimit(.minutes(2))) func benchDaemonMeasuresBothSidesAndCleansUp() throws {
        let output = try TestNamespace.shell(DaemonProcess.executable, "bench", "daemon", "--events", "4", "--json")
        let document = try JSONValue.parse(Array(output.utf8))
        #expect(document.member("version")?.numberValue == 1)
        #expect(document.member("benchmark")?.stringValue == "daemon")
        #expect(document.member("daemon_ms")?.member("n")?.numberValue == 4, "\(output)")
        #expect(document.member("loop_ms")?.member("n")?.numberValue == 4, "\(output)")
        let ratio = try #require(document.member("ratio")?.numberValue)
        #expect(ratio > 0 && ratio.isFinite)
        let namespaces = try TestNamespace.shell("ip", "netns", "list")
        #expect(!namespaces.contains("nrbench-"), "a namespace was left behind: \(namespaces)")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: "/tmp").contains { $0.hasPrefix("nrbench-") })
    }

    @Test func benchOfAnUnknownKindSaysWhichExist() throws {
        #expect(throws: (any Error).self) { try TestNamespace.shell(DaemonProcess.executable, "bench", "nope") }
    }
}
