import NetRulesCore
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesLinux

@Suite(.timeLimit(.minutes(1)))
struct ExecObserverTests {
    @Test(arguments: [
        (
            #"{"vpn.connected": true, "vpn.name": "work", "count": 3}"#,
            FactUpdate(["vpn.connected": .value(.bool(true)), "vpn.name": .text("work"), "count": .value(.number(3))])
        ),
        (
            #"{"ssid": "Office", "bssid": null, "dns": ["10.0.0.53", "10.0.0.54"]}"#,
            FactUpdate(["ssid": .text("Office"), "bssid": .absent, "dns": .value(.list(["10.0.0.53", "10.0.0.54"]))])
        ),
    ])
    func decodesALineOfFacts(line: String, expected: FactUpdate) throws {
        #expect(try PluginLine.parse(line).get() == expected)
    }

    @Test(arguments: [
        (#"{"a": [[1, 2], [3]]}"#, #"fact "a" holds a list inside a list; facts are values or lists of values"#),
        (
            #"{"a": [1, null]}"#,
            #"fact "a" holds a list with an object or null in it; facts are values or lists of values"#
        ),
        (#"{"a": {"b": 1}}"#, #"fact "a" holds an object; facts are values or lists of values"#),
        (#"{"a": 1e999}"#, "not JSON"),
    ])
    func aRefusedLineSaysWhatItHolds(line: String, message: String) {
        guard case .failure(let error) = PluginLine.parse(line) else {
            Issue.record("accepted \(line)")
            return
        }
        #expect(error.description == message)
    }

    @Test(arguments: ["not json", "[1, 2]", #"{"a": {"b": 1}}"#, #"{"bad key": 1}"#])
    func rejectsMalformedLines(line: String) {
        guard case .failure = PluginLine.parse(line) else {
            Issue.record("accepted \(line)")
            return
        }
    }

    /// One run: facts merge, a bad line is skipped with the plugin's name, and the exit ends the
    /// run with its status (the daemon's supervision makes the facts unknown and restarts it:
    /// `ObserverSupervisionTests`, `DaemonSupervisionTests`).
    @Test func mergesFactsSkipsBadLinesAndEndsWithTheExitStatus() async throws {
        let script = """
            echo '{"vpn.connected": true}'; echo 'garbage'; echo '{"vpn.interface": "wg0"}'; sleep 0.2; exit 3
            """
        let log = CapturingLogSink()
        let observer = ExecObserver(
            definition: ObserverDefinition(name: "vpn", command: ["/bin/sh", "-c", script]),
            loop: .testLoop, logger: log.logger())
        let facts = ObservedFacts(observer)
        try await facts.waitUntil("both facts") {
            $0["vpn.connected"] == .value(.bool(true)) && $0["vpn.interface"] == .text("wg0")
        }
        let ended = await facts.ending()
        #expect((ended as? ExecObserver.Ended)?.description == "exited with status 3")
        #expect(log.messages.contains { $0.contains("'vpn'") && $0.contains("malformed") && $0.contains("garbage") })
    }

    /// A line without its newline is held only up to 64 KiB: the rest of it is skipped up to its
    /// newline with one warning a run, and the lines after it still count.
    @Test func aLineOverSixtyFourKiBIsSkippedWithOneWarningAndTheNextLinesCount() async throws {
        // 200 KiB of one line (in several reads), a second long one, then a good line.
        let script = """
            head -c 204800 /dev/zero | tr '\\0' x; echo; head -c 100000 /dev/zero | tr '\\0' y; echo
            echo '{"vpn.up": true}'; sleep 0.2; exit 0
            """
        let log = CapturingLogSink()
        let observer = ExecObserver(
            definition: ObserverDefinition(name: "long", command: ["/bin/sh", "-c", script]), loop: .testLoop,
            logger: log.logger())
        let facts = ObservedFacts(observer)
        try await facts.waitUntil("the line after the long ones") { $0["vpn.up"] == .value(.bool(true)) }
        _ = await facts.ending()
        let warnings = log.messages.filter { $0.contains("longer than 64 KiB") }
        #expect(warnings.count == 1, "\(log.messages)")
        #expect(!log.messages.contains { $0.contains("malformed") }, "a piece of a long line was read as a line")
    }

    /// What one read brought is one hand-over (the daemon makes it one event), each line's update
    /// in order: none is merged into another, so no edge is lost.
    @Test func theLinesOfOneReadAreHandedOverTogetherInOrder() async throws {
        // One write(2) of three lines, well under PIPE_BUF: it arrives in one read.
        let script = #"printf '{"n": 1}\n{"n": 2}\n{"n": 3}\n'; sleep 0.2; exit 0"#
        let handed = Mutex<[[FactUpdate]]>([])
        let reporter = FactReporter(
            { update in handed.withLock { $0.append([update]) } },
            all: { updates in handed.withLock { $0.append(updates) } })
        let observer = ExecObserver(
            definition: ObserverDefinition(name: "burst", command: ["/bin/sh", "-c", script]), loop: .testLoop,
            logger: .disabled)
        do {
            try await observer.run(reporting: reporter)
        } catch {
            // The plugin's end: what was handed over before it is what this test reads.
        }
        let groups = handed.withLock { $0 }
        #expect(groups.flatMap { $0 }.map { $0.changes["n"] } == [1, 2, 3].map { .value(.number($0)) })
        #expect(groups.count == 1, "\(groups)")
    }

    @Test func aPluginThatCannotStartEndsSayingWhy() async throws {
        let observer = ExecObserver(
            definition: ObserverDefinition(name: "gone", command: ["/nonexistent/netrules-observer-gone"]),
            loop: .testLoop, logger: .disabled)
        let ended = await ObservedFacts(observer).ending()
        #expect(
            (ended as? ExecObserver.Ended)?.description.hasPrefix("could not run: ") == true,
            "\(String(describing: ended))")
    }

    @Test func cancellationStopsALongRunningPlugin() async throws {
        let observer = ExecObserver(
            definition: ObserverDefinition(
                name: "sleepy", command: ["/bin/sh", "-c", "echo '{\"up\": 1}'; exec sleep 600"]),
            loop: .testLoop, logger: .disabled)
        let facts = ObservedFacts(observer)
        try await facts.waitFor("up", .value(.number(1)))
        let clock = ContinuousClock()
        let started = clock.now
        try await facts.stop()
        #expect(clock.now - started < .seconds(2))
    }
}
