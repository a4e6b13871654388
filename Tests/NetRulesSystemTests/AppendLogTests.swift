@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting
import Testing

/// The append-only line file under the state journal and the history: what is appended, what a
/// cut-off write or a damaged file reads back as, and the rewrite that compacts it.
@Suite(.timeLimit(.minutes(1)))
struct AppendLogTests {
    static func text(_ lines: [[UInt8]]) -> [String] { lines.map { String(decoding: $0, as: UTF8.self) } }

    @Test func appendedLinesReadBackAndTheFileIsPrivate() throws {
        let directory = TemporaryDirectory("netrules-appendlog")
        defer { directory.remove() }
        let log = AppendLog(path: directory.file("log.jsonl"))
        #expect(try AppendLog.read(log.path, maximumLineLength: 100, maximumReadLength: 1_000) == nil)
        try log.append(Array("one".utf8))
        try log.append(Array("two".utf8))
        let read = try #require(try AppendLog.read(log.path, maximumLineLength: 100, maximumReadLength: 1_000))
        #expect(Self.text(read.lines) == ["one", "two"] && read.overLong == 0 && !read.cutOff)
        var info = stat()
        #expect(stat(log.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func aCutOffLastLineAnOverLongOneAndEmptyOnesAreLeftOut() throws {
        let directory = TemporaryDirectory("netrules-appendlog")
        defer { directory.remove() }
        let path = directory.file("log.jsonl")
        directory.write(
            "log.jsonl",
            "a\n\n" + String(repeating: "x", count: 11) + "\nb\n" + String(repeating: "y", count: 10) + "\nhalf")
        let read = try #require(try AppendLog.read(path, maximumLineLength: 10, maximumReadLength: 1_000))
        #expect(Self.text(read.lines) == ["a", "b", String(repeating: "y", count: 10)])
        #expect(read.overLong == 1 && read.cutOff)
    }

    @Test func onlyTheEndIsReadAndItsFirstPartialLineIsLeftOut() throws {
        let directory = TemporaryDirectory("netrules-appendlog")
        defer { directory.remove() }
        let path = directory.file("log.jsonl")
        directory.write("log.jsonl", "first\nsecond\nthird\n")
        // The last 9 bytes: "nd\nthird\n".
        let read = try #require(try AppendLog.read(path, maximumLineLength: 100, maximumReadLength: 9))
        #expect(Self.text(read.lines) == ["third"] && !read.cutOff)
    }

    @Test func aRewriteReplacesTheFileAndTheNextAppendGoesToTheNewOne() throws {
        let directory = TemporaryDirectory("netrules-appendlog")
        defer { directory.remove() }
        let log = AppendLog(path: directory.file("log.jsonl"))
        for n in 0..<5 { try log.append(Array("line \(n)".utf8)) }
        try log.rewrite(lines: [Array("kept".utf8)])
        try log.append(Array("after".utf8))
        let read = try #require(try AppendLog.read(log.path, maximumLineLength: 100, maximumReadLength: 1_000))
        #expect(Self.text(read.lines) == ["kept", "after"])
    }

    @Test func aSymlinkIsRefusedAndSoIsADirectory() throws {
        let directory = TemporaryDirectory("netrules-appendlog")
        defer { directory.remove() }
        #expect(symlink("/etc/passwd", directory.file("link.jsonl")) == 0)
        #expect(throws: SystemCallError.self) { try AppendLog(path: directory.file("link.jsonl")).open() }
        #expect(throws: SystemCallError.self) {
            try AppendLog.read(directory.file("link.jsonl"), maximumLineLength: 100, maximumReadLength: 100)
        }
        #expect(mkdir(directory.file("dir.jsonl"), 0o700) == 0)
        let error = #expect(throws: SystemCallError.self) {
            try AppendLog.read(directory.file("dir.jsonl"), maximumLineLength: 100, maximumReadLength: 100)
        }
        #expect(error?.call == "fstat")
    }
}
