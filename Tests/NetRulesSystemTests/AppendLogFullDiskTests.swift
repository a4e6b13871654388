@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting
import Testing

/// An append to a log on a full disk (a 1 MiB tmpfs the test mounts): it fails with ENOSPC, leaves
/// the file as it was, and the same log appends again once there is room.
@Suite(
    .timeLimit(.minutes(1)), .serialized, .enabled(if: SmallFileSystem.isAvailable, SmallFileSystem.unavailableReason))
struct AppendLogFullDiskTests {
    @Test func aFailedAppendLeavesTheFileAsItWasAndTheNextOneWorksOnceThereIsRoom() throws {
        let directory = TemporaryDirectory("netrules-appendlog-full")
        let disk = try SmallFileSystem(at: directory.path)
        defer {
            disk.unmount()
            directory.remove()
        }
        let log = AppendLog(path: directory.file("log.jsonl"))
        try log.append(Array("first".utf8))
        #expect(disk.fill() > 900_000)
        // Part of this line fits in the file's last page (tmpfs allocates whole pages), the rest
        // does not: the write is short, the next one fails, and the part written is cut off again.
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000)
        #expect {
            try log.append(long)
        } throws: { error in
            (error as? SystemCallError)?.errno == Errno(rawValue: ENOSPC) && "\(error)".contains("'write' failed: (28)")
        }
        #expect(try FileContents.read(log.path) == Array("first\n".utf8))
        disk.makeRoom()
        try log.append(Array("second".utf8))
        let read = try #require(try AppendLog.read(log.path, maximumLineLength: 100, maximumReadLength: 1_000))
        #expect(read.lines.map { String(decoding: $0, as: UTF8.self) } == ["first", "second"] && !read.cutOff)
    }
}
