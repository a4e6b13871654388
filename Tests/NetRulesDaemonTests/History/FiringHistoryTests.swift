import Foundation
@preconcurrency import Glibc
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
import NetRulesTesting
import Testing

/// The daemon's ring of firings and its file: bounded, compacted, merged, and robust against a
/// file a kill or a person damaged.
@Suite(.timeLimit(.minutes(1)))
struct FiringHistoryTests {
    static func entry(_ number: Int, rule: String = "r", status: String = "pending") -> HistoryEntry {
        HistoryEntry(
            id: "t-\(number)", time: WallClock.rfc3339(WallTime(secondsSince1970: Double(1_796_115_733 + number))),
            rule: rule, edge: .enter, facts: [.init(key: "ssid", value: .string("S\(number)"))],
            actions: [.init(type: "run", rendered: "true", outcome: .init(status: status))])
    }

    func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func keepsTheNewestLimitEntriesInMemoryAndAcrossARestart() async {
        let directory = TemporaryDirectory("netrules-history")
        defer { directory.remove() }
        var history = FiringHistory(directory: directory.path, limit: 5)
        for number in 1...20 { history.record(Self.entry(number)) }
        #expect(history.entries.map(\.id) == (16...20).map { "t-\($0)" })
        await history.written()

        let restarted = FiringHistory(directory: directory.path, limit: 5)
        await restarted.written()
        #expect(restarted.entries == history.entries)
        // The restart rewrote the file with exactly the kept entries.
        #expect(lines(directory.file(FiringHistory.fileName)).count == 5)
    }

    @Test func theFileIsCompactedBeforeItGrowsPastItsBoundAndIsPrivate() async {
        let directory = TemporaryDirectory("netrules-history")
        defer { directory.remove() }
        let limit = 40
        var history = FiringHistory(directory: directory.path, limit: limit)
        let path = directory.file(FiringHistory.fileName)
        var most = 0
        for number in 1...500 {
            history.record(Self.entry(number))
            history.update(id: "t-\(number)") { $0.actions[0].outcome = .init(status: "ok") }
            await history.written()
            most = max(most, lines(path).count)
        }
        #expect(most <= limit + max(limit / 4, 16))
        let read = FiringHistory.read(path: path)
        #expect(read.entries.count >= limit)
        #expect(read.entries.suffix(limit).map(\.id) == (461...500).map { "t-\($0)" })
        #expect(read.entries.allSatisfy { $0.actions[0].outcome.status == "ok" })
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func anUpdateIsMergedIntoItsFiringInPlace() async {
        let directory = TemporaryDirectory("netrules-history")
        defer { directory.remove() }
        var history = FiringHistory(directory: directory.path, limit: 10)
        history.record(Self.entry(1))
        history.record(Self.entry(2))
        #expect(history.update(id: "t-1") { $0.actions[0].outcome = .init(status: "ok") })
        #expect(!history.update(id: "no-such-firing") { _ in })
        await history.written()
        let read = FiringHistory.read(path: directory.file(FiringHistory.fileName))
        #expect(read.entries.map(\.id) == ["t-1", "t-2"])
        #expect(read.entries.map(\.actions[0].outcome.status) == ["ok", "pending"])
        #expect(lines(directory.file(FiringHistory.fileName)).count == 3)
    }

    @Test func aWebhookDeliveredLaterFindsItsFiringByIdempotencyKey() {
        let directory = TemporaryDirectory("netrules-history")
        defer { directory.remove() }
        var history = FiringHistory(directory: directory.path, limit: 10)
        var entry = Self.entry(1)
        entry.actions = [.init(type: "webhook", rendered: "POST https://x.example/", idempotencyKey: "key-1")]
        history.record(entry)
        #expect(history.id(ofDelivery: "key-1") == "t-1")
        #expect(history.id(ofDelivery: "key-2") == nil)
    }

    @Test func damagedLinesAreSkippedAndTheRestIsKept() async throws {
        let directory = TemporaryDirectory("netrules-history")
        defer { directory.remove() }
        let path = directory.file(FiringHistory.fileName)
        var bytes: [UInt8] = []
        bytes += Array((Self.entry(1).document.compact + "\n").utf8)
        bytes += Array("not json at all\n".utf8)
        bytes += [0xFF, 0xFE, 0x00, 0x0A]
        bytes += Array("{\"version\":2,\"id\":\"t-9\",\"time\":\"x\",\"rule\":\"r\",\"edge\":\"enter\"}\n".utf8)
        bytes += Array(
            "{\"version\":1,\"id\":\"t-8\",\"time\":\"x\",\"rule\":\"r\",\"edge\":\"sideways\",\"facts\":{},\"actions\":[]}\n"
                .utf8)
        bytes += Array(String(repeating: "[", count: 10_000).utf8) + [0x0A]
        bytes += Array(
            ("{\"version\":1,\"id\":\"" + String(repeating: "x", count: FiringHistory.maximumLineLength) + "\"}\n").utf8
        )
        bytes += Array((Self.entry(2).document.compact + "\n").utf8)
        // A kill in the middle of an append leaves half a line at the end.
        bytes += Array(Self.entry(3).document.compact.utf8.prefix(40))
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))

        let read = FiringHistory.read(path: path)
        #expect(read.entries.map(\.id) == ["t-1", "t-2"])
        #expect(read.skippedLines == 7)

        // The daemon starts over from what it could read, and its next line starts a line of its own.
        var history = FiringHistory(directory: directory.path, limit: 10)
        history.record(Self.entry(4))
        await history.written()
        #expect(FiringHistory.read(path: path).entries.map(\.id) == ["t-1", "t-2", "t-4"])
        #expect(FiringHistory.read(path: path).skippedLines == 0)
    }

    /// The file is written on the pool in the order asked: a line appended right after a
    /// compaction is asked for lands in the new file, never in the old one the rename replaces.
    @Test func linesQueuedAroundACompactionAllLandInTheNewFileInOrder() async {
        let directory = TemporaryDirectory("netrules-history")
        defer { directory.remove() }
        let limit = 20
        var history = FiringHistory(directory: directory.path, limit: limit)
        // limit + 16 lines make the next append a compaction; everything is queued without waiting.
        for number in 1...(limit + 16 + 5) { history.record(Self.entry(number)) }
        await history.written()
        let read = FiringHistory.read(path: directory.file(FiringHistory.fileName))
        // The compaction's entries, then every line appended after it, each once, in order.
        let ids = read.entries.map(\.id)
        #expect(Array(ids.suffix(limit)) == history.entries.map(\.id))
        let numbers = ids.compactMap { Int($0.dropFirst(2)) }
        #expect(numbers == Array((numbers.first ?? 0)...(limit + 21)), "\(ids)")
        #expect(ids.count < limit + 16)
    }

    /// Writes that fail (here: a directory where the file was) are made good by one rewrite from
    /// memory once the file can be written again: nothing recorded meanwhile is lost from it.
    @Test func afterFailedWritesOneRewriteBringsTheFileBackWhole() async throws {
        let directory = TemporaryDirectory("netrules-history")
        defer { directory.remove() }
        let path = directory.file(FiringHistory.fileName)
        var history = FiringHistory(directory: directory.path, limit: 100)
        // The start's rewrite leaves no descriptor open: the next append opens the path again.
        await history.written()
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        for number in 1...40 { history.record(Self.entry(number)) }
        await history.written()
        #expect(FiringHistory.read(path: path).entries.isEmpty)

        try FileManager.default.removeItem(atPath: path)
        history.record(Self.entry(41))
        history.record(Self.entry(42))
        await history.written()
        #expect(FiringHistory.read(path: path).entries.map(\.id) == (1...42).map { "t-\($0)" })
    }

    @Test func aMissingOrUnreadableFileIsAnEmptyHistory() {
        let directory = TemporaryDirectory("netrules-history")
        defer { directory.remove() }
        let missing = FiringHistory.read(path: directory.file("nothing.jsonl"))
        #expect(!missing.exists && missing.entries.isEmpty)
        // A directory where the file should be: read as nothing, never a crash.
        mkdir(directory.file("dir.jsonl"), 0o700)
        #expect(FiringHistory.read(path: directory.file("dir.jsonl")).entries.isEmpty)
    }

    @Test func theQuerySelectsByRuleTimeAndCountOldestFirst() {
        let entries = (1...10).map { Self.entry($0 * 600, rule: $0 % 2 == 0 ? "even" : "odd") }
        let now = Int64(1_796_115_733 + 6_000)
        #expect(HistoryQuery().select(entries, now: now).count == 10)
        #expect(
            HistoryQuery(rule: "even").select(entries, now: now).map(\.id) == [2, 4, 6, 8, 10].map { "t-\($0 * 600)" })
        #expect(HistoryQuery(rule: "gone").select(entries, now: now).isEmpty)
        #expect(
            HistoryQuery(since: .seconds(1_800)).select(entries, now: now).map(\.id)
                == [7, 8, 9, 10].map { "t-\($0 * 600)" })
        #expect(HistoryQuery(limit: 2).select(entries, now: now).map(\.id) == ["t-5400", "t-6000"])
        #expect(
            HistoryQuery(rule: "odd", since: .seconds(3_600), limit: 1).select(entries, now: now).map(\.id) == [
                "t-5400"
            ])
    }

    @Test func theControlRequestCarriesTheQuery() throws {
        let query = HistoryQuery(rule: "office", since: .seconds(3_600), limit: 5)
        let line = Array(ControlRequest.history(query).document.compact.utf8)
        #expect(try ControlRequest.parse(line).get() == .history(query))
        #expect(
            try ControlRequest.parse(Array(#"{"version":1,"command":"history"}"#.utf8)).get()
                == .history(HistoryQuery()))
        for bad in [
            #"{"version":1,"command":"history","limit":-1}"#, #"{"version":1,"command":"history","limit":1.5}"#,
            #"{"version":1,"command":"history","since_seconds":"1h"}"#, #"{"version":1,"command":"history","rule":3}"#,
        ] {
            #expect(throws: (any Error).self) { try ControlRequest.parse(Array(bad.utf8)).get() }
        }
    }
}
