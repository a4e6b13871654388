import Foundation
@preconcurrency import Glibc
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

@Suite(.timeLimit(.minutes(1)))
struct LogSinkTests {
    /// 2026-11-29T09:00:00Z.
    static let instant = WallTime(secondsSince1970: 1_795_942_800)

    private func record(
        _ message: String, level: Logger.Level = .notice, metadata: [(String, String)] = []
    ) -> Logger.Record {
        let memory = CapturingLogSink()
        Logger(label: "netrules.daemon", level: .trace, sink: memory).log(level, message, metadata: metadata)
        return memory.records[0]
    }

    @Test func plainLineHasTimestampLevelLabelMessageAndMetadata() {
        let line = LogLineFormat.plain.render(
            record("rules loaded", metadata: [("files", "2"), ("dir", "/etc/net rules")]), at: Self.instant)
        #expect(line == #"2026-11-29T09:00:00Z notice netrules.daemon: rules loaded files=2 dir="/etc/net rules""#)
    }

    @Test func journalLineHasPriorityPrefixAndNoTimestamp() {
        let line = LogLineFormat.journal.render(
            record("reload failed", level: .warning, metadata: [("error", "x")]), at: Self.instant)
        #expect(line == "<4>warning netrules.daemon: reload failed error=x")
    }

    @Test(arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func syslogPriorities(level: Logger.Level, priority: Int) {
        #expect(LogLineFormat.syslogPriority(of: level) == priority)
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("192.168.1.7/24", "192.168.1.7/24"),
        ("Café", "Café"),
        ("", #""""#),
        ("two words", #""two words""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"back\slash"#, #""back\\slash""#),
        ("a=b", #""a=b""#),
        ("line\nforged=1", #""line\nforged=1""#),
        ("tab\there", #""tab\there""#),
        ("esc\u{1B}[31m", #""esc\x1b[31m""#),
        ("nel\u{85}", #""nel\u{85}""#),
        ("sep\u{2028}", #""sep\u{2028}""#),
        ("csi\u{9B}2J", #""csi\u{9B}2J""#),
        ("rlo\u{202E}txt.exe", #""rlo\u{202E}txt.exe""#),
    ])
    func metadataQuoting(value: String, rendered: String) {
        #expect(LogLineFormat.quotedIfNeeded(value) == rendered)
    }

    @Test func messageStaysOnOneLine() {
        let line = LogLineFormat.plain.render(record("first\nsecond\r\n"), at: Self.instant)
        #expect(line == #"2026-11-29T09:00:00Z notice netrules.daemon: first\nsecond\r\n"#)
    }

    @Test func inMemorySinkKeepsRecordsInOrder() {
        let memory = CapturingLogSink()
        let logger = Logger(label: "netrules.test", level: .info, sink: memory)
        logger.debug("dropped")
        logger.info("one", metadata: [("rule.id", "office")])
        logger.error("two")
        #expect(memory.messages == ["one", "two"])
        #expect(memory.records[0].metadata.map(\.0) == ["rule.id"])
        #expect(memory.records[1].level == .error)
        memory.removeAll()
        #expect(memory.records.isEmpty)
    }

    @Test func journalStreamIsTrustedOnlyWhenItNamesTheDescriptor() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fd = open(directory.file("log"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        var status = stat()
        try #require(fstat(fd, &status) == 0)
        let matching = "\(status.st_dev):\(status.st_ino)"
        #expect(StandardErrorLogSink.isJournalStream(matching, descriptor: fd))
        #expect(!StandardErrorLogSink.isJournalStream("\(status.st_dev):\(status.st_ino + 1)", descriptor: fd))
        #expect(!StandardErrorLogSink.isJournalStream("garbage", descriptor: fd))
        #expect(!StandardErrorLogSink.isJournalStream(nil, descriptor: fd))

        let journal = StandardErrorLogSink(
            descriptor: fd, environment: ["JOURNAL_STREAM": matching], now: { Self.instant })
        #expect(journal.format == .journal)
        let terminal = StandardErrorLogSink(descriptor: fd, environment: [:], now: { Self.instant })
        #expect(terminal.format == .plain)
    }

    @Test func concurrentLinesNeverInterleave() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("log")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        let sink = StandardErrorLogSink(descriptor: fd, environment: [:], now: { Self.instant })
        let logger = Logger(label: "netrules.test", level: .info, sink: sink)
        let writers = 8
        let linesEach = 200
        // Long lines make a torn write visible: each is one writer's digit repeated.
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let body = String(repeating: String(writer), count: 2_000)
                    for index in 0..<linesEach {
                        logger.notice(body, metadata: [("n", String(index))])
                    }
                }
            }
        }
        close(fd)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == writers * linesEach)
        let prefix = "2026-11-29T09:00:00Z notice netrules.test: "
        for line in lines {
            #expect(line.hasPrefix(prefix))
            let body = line.dropFirst(prefix.count).prefix { $0 != " " }
            #expect(body.count == 2_000 && Set(body).count == 1, "torn line: \(line.prefix(80))…")
        }
    }
}
