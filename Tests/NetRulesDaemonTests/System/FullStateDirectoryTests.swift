@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// The state directory on a full disk (a 1 MiB tmpfs the test mounts and fills): one log line for
/// the whole streak with the file and the errno, no trail of journal segments however often the
/// daemon retries, and one line when space returns, after which the saved state is current.
@Suite(
    .timeLimit(.minutes(2)), .serialized, .enabled(if: SmallFileSystem.isAvailable, SmallFileSystem.unavailableReason))
struct FullStateDirectoryTests {
    static func line(_ n: Int) -> JournalDelta {
        var line = JournalDelta()
        line.rules = [
            "office": PersistedState.SavedRule(
                fingerprint: "f1", confirmed: n % 2 == 0, cooldownUntil: nil, hold: nil)
        ]
        line.nextFiringNumber = n
        return line
    }

    static func state(_ n: Int) -> PersistedState {
        var state = PersistedState()
        state.rules = line(n).rules
        state.nextFiringNumber = n
        return state
    }

    static func entry(_ number: Int) -> HistoryEntry {
        HistoryEntry(
            id: "p-\(number)", time: WallClock.rfc3339(WallTime(secondsSince1970: Double(1_796_115_733 + number))),
            rule: "office", edge: .enter, facts: [.init(key: "ssid", value: .string("Office"))],
            actions: [.init(type: "run", rendered: "true", outcome: .init(status: "ok"))])
    }

    static func segments(_ disk: SmallFileSystem) -> [String] { disk.names().filter { $0.hasPrefix("journal") } }

    @Test func aFullDiskIsOneLineWithoutATrailOfSegmentsAndItsEndIsLoggedOnce() async throws {
        let directory = TemporaryDirectory("netrules-full-state")
        let disk = try SmallFileSystem(at: directory.path)
        defer {
            disk.unmount()
            directory.remove()
        }
        let sink = CapturingLogSink()
        let files = StateFiles(directory: directory.path, logger: sink.logger(), startTime: 1)
        _ = files.open()
        var history = FiringHistory(directory: directory.path, limit: 100, failures: files.failures)
        files.writeSnapshot(Self.state(1)) { Issue.record("\($0)") }
        for n in 2...5 { try files.append(Self.line(n)) }
        await files.finishWriting()
        #expect(disk.fill() > 900_000)

        // What the daemon does at each change on a full disk: the append fails, a snapshot
        // follows and fails, and so on at the next change; firings' history entries fail too.
        var failedAppends = 0
        let failedSnapshots = Mutex(0)
        var mostSegments = 0
        for n in 6...505 {
            do {
                try files.append(Self.line(n))
            } catch {
                failedAppends += 1
            }
            files.writeSnapshot(Self.state(n)) { _ in failedSnapshots.withLock { $0 += 1 } }
            history.record(Self.entry(n))
            await files.finishWriting()
            await history.written()
            mostSegments = max(mostSegments, Self.segments(disk).count)
        }
        #expect(failedAppends > 450, "the last page filled within a few appends")
        #expect(failedSnapshots.withLock { $0 } > 450)
        #expect(mostSegments <= 2, "journal segments at once: \(mostSegments)")
        #expect(sink.records.count == 1, "\(sink.messages)")
        let report = try #require(sink.records.first)
        #expect(report.level == .error)
        #expect(report.message.contains("the state directory '\(directory.path)' is not writable"), "\(report.message)")
        #expect(report.message.contains(directory.path + "/"), "names the file: \(report.message)")
        #expect(report.message.contains("(28) No space left on device"), "\(report.message)")

        disk.makeRoom()
        files.writeSnapshot(Self.state(506)) { Issue.record("\($0)") }
        await files.finishWriting()
        #expect(sink.records.count == 1, "not recovered while the journal and history have not worked yet")
        try files.append(Self.line(507))
        history.record(Self.entry(507))
        await history.written()
        await files.finishWriting()
        #expect(sink.records.count == 2, "\(sink.messages)")
        let recovery = try #require(sink.records.last)
        #expect(recovery.level == .notice)
        #expect(
            recovery.message.hasPrefix(
                "the state directory '\(directory.path)' is writable again and the saved state is current"),
            "\(recovery.message)")
        #expect(recovery.message.contains("\(failedAppends) journal appends"), "\(recovery.message)")
        #expect(recovery.message.contains("history writes"), "\(recovery.message)")
        #expect(Self.segments(disk).count == 1, "\(disk.names())")

        // What it said: the state on disk is current, and the history holds every firing.
        let restarted = StateFiles(directory: directory.path, logger: sink.logger(), startTime: 2)
        let restored = try #require(restarted.open().state)
        #expect(restored.nextFiringNumber == 507 && restored.rules == Self.line(507).rules)
        let kept = FiringHistory.read(path: directory.file(FiringHistory.fileName)).entries.map(\.id)
        #expect(kept.count == 100 && kept.last == "p-507", "\(kept.suffix(3))")
        #expect(sink.records.count == 2, "\(sink.messages)")
    }
}
