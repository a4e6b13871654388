import Foundation
import NetRulesCore
import NetRulesTesting
import Testing

/// `netrules-bench daemon`, run as a user would (the built binaries, as root): it measures both
/// sides on every link change through the `netrules` beside it, prints its JSON document, and
/// leaves no namespace or process behind. Its figures are not asserted: benchmarks are measured,
/// not tested (README). `netrules` itself has no `bench` command.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct BenchCommandTests {
    /// The built `netrules-bench` executable, beside `netrules`.
    static let bench = DaemonProcess.executable + "-bench"

    @Test(.timeLimit(.minutes(2))) func benchDaemonMeasuresBothSidesAndCleansUp() throws {
        let output = try TestNamespace.shell(Self.bench, "daemon", "--events", "4", "--json")
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

    /// `netrules-bench mqtt`: every figure present, every change and action arrived (a count,
    /// not a time), and no namespace, scratch directory or mosquitto left behind.
    @Test(.timeLimit(.minutes(3)), .enabled(if: TestBroker.installed, "SKIPPED: mosquitto is not installed"))
    func benchMQTTMeasuresEveryFigureAndCleansUp() throws {
        let output = try TestNamespace.shell(Self.bench, "mqtt", "--seconds", "2", "--json")
        let document = try JSONValue.parse(Array(output.utf8))
        #expect(document.member("benchmark")?.stringValue == "mqtt")
        let latency = document.member("state_latency")
        #expect(latency?.member("received")?.numberValue == 200, "\(output)")
        #expect(latency?.member("ms_p50")?.numberValue.map { $0 > 0 } == true, "\(output)")
        #expect(document.member("idle")?.member("connected") == .bool(true), "\(output)")
        let backlog = document.member("backlog")
        #expect(backlog?.member("received")?.numberValue == 1000, "\(output)")
        #expect(backlog?.member("outbox_left")?.numberValue == 0, "\(output)")
        let namespaces = try TestNamespace.shell("ip", "netns", "list")
        #expect(!namespaces.contains("nrbench-"), "a namespace was left behind: \(namespaces)")
        let scratch = try FileManager.default.contentsOfDirectory(atPath: "/tmp")
        #expect(!scratch.contains { $0.hasPrefix("nrbench-") || $0.hasPrefix("netrules-bench-idle-") }, "\(scratch)")
        // '[n]': the pattern must not match grep's own command line.
        let brokers = try TestNamespace.shell(
            "sh", "-c", "grep -l '[n]rbench-\\|[n]etrules-bench-idle' /proc/[0-9]*/cmdline 2>/dev/null || true")
        #expect(brokers.isEmpty, "left running: \(brokers)")
    }

    @Test func benchOfAnUnknownKindSaysWhichExist() throws {
        let error = try #require(throws: (any Error).self) { try TestNamespace.shell(Self.bench, "nope") }
        #expect("\(error)".contains("available: engine, daemon, load, idle, mqtt"), "\(error)")
    }

    @Test func theProductHasNoBenchCommand() throws {
        let error = try #require(throws: (any Error).self) {
            try TestNamespace.shell(DaemonProcess.executable, "bench", "engine")
        }
        #expect("\(error)".contains("Unknown subcommand 'bench'"), "\(error)")
    }
}
