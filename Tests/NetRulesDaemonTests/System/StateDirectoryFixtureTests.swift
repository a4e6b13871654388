import Foundation
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// A state directory as netrules 0.x wrote it (`Fixtures/state-dir-v1`: `state.json` with shared
/// snapshots, a journal with `retired`, `removed`, an inline `facts` line from before snapshots and
/// a torn last line) loads through the one codec with every value it held.
@Suite(.timeLimit(.minutes(1)))
struct StateDirectoryFixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/state-dir-v1").path

    @Test func aStateDirectoryWrittenByThePreviousVersionLoads() throws {
        let directory = TemporaryDirectory("netrules-fixture")
        defer { directory.remove() }
        for name in [PersistedState.fileName, StateJournal.fileName] {
            let bytes = try #require(try FileContents.read(Self.fixture + "/" + name), "fixture \(name)")
            try AtomicFile.replace(directory.file(name), with: bytes, mode: 0o600, sync: false)
        }
        let sink = CapturingLogSink()
        let files = StateFiles(directory: directory.path, logger: sink.logger(), startTime: 1)
        let state = try #require(files.open().state)
        #expect(sink.messages.isEmpty, "nothing set aside or skipped: \(sink.messages)")

        #expect(state.nextFiringNumber == 10)
        #expect(Set(state.rules.keys) == ["office", "home"], "vpn removed by the journal, home added")
        let office = try #require(state.rules["office"])
        #expect(office.confirmed == true && office.cooldownUntil == 1_796_115_600)
        #expect(office.oncePerUntil == ["enter": 1_796_119_200] && office.hold == nil)
        #expect(state.inflight.map(\.id) == ["p-7", "p-9"], "p-8 retired, p-9 added by the journal")
        let resumed = state.inflight[0]
        #expect(resumed.nextAction == 1 && resumed.actionCount == 2 && resumed.edge == .enter)
        let facts = Dictionary(uniqueKeysWithValues: resumed.facts.map { ($0.0.rawValue, $0.1) })
        #expect(facts["ssid"] == .value(.bytes([0x4f, 0xff])))
        #expect(facts["signal"] == .value(.number(-61)))
        #expect(facts["wired"] == .value(.bool(false)))
        #expect(facts["vpn"] == .absent)
        #expect(facts["interfaces"] == .value(.list([.string("eth0"), .string("wlan0")])))
        #expect(state.inflight[1].facts.map(\.1) == [.value(.string("Home"))])
    }

    @Test func aHoldFromThePreviousVersionKeepsItsTargetAndDeadline() throws {
        let bytes = try #require(try FileContents.read(Self.fixture + "/" + PersistedState.fileName))
        let vpn = try #require(try PersistedState(decoding: bytes).rules["vpn"])
        #expect(vpn.hold?.target == true && vpn.hold?.deadline == 1_796_115_630.5)
    }

    @Test(arguments: [
        (
            #"{"version":1,"rules":{"a":{"confirmed":"yes","fingerprint":"f"}}}"#,
            "rules.a.confirmed: expected a boolean"
        ),
        (#"{"version":1,"inflight":[{"edge":"enter"}]}"#, "inflight[0].id: missing"),
        (#"{"version":2}"#, "version: not a version 1 state file"),
        (#"{"version":1,"#, "not JSON"),
    ])
    func aDamagedStateFileIsReportedWithItsKeyPath(text: String, reason: String) throws {
        #expect(throws: JSONValue.ShapeError.self) { try PersistedState(decoding: Array(text.utf8)) }
        do {
            _ = try PersistedState(decoding: Array(text.utf8))
        } catch {
            #expect(error.description.hasPrefix(reason), "\(error)")
        }
    }
}
