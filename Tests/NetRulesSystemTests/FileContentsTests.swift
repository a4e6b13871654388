import Foundation
@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting
import Testing

/// Reading a file a person named: what `FileManager.contents(atPath:)` read before, the same bytes
/// or nothing for the same files.
@Suite(.timeLimit(.minutes(1)))
struct FileContentsTests {
    @Test func readsWhatFileManagerReadAndRefusesWhatItRefused() throws {
        let directory = TemporaryDirectory("netrules-filecontents")
        defer { directory.remove() }
        let text = directory.write("rules.yaml", "version: 1\nrules: []\n")
        let empty = directory.write("empty.yaml", "")
        let large = directory.file("large.bin")
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try AtomicFile.replace(large, with: bytes, mode: 0o644)
        let link = directory.file("link.yaml")
        try #require(symlink(text, link) == 0)
        let dangling = directory.file("dangling.yaml")
        try #require(symlink(directory.file("gone"), dangling) == 0)
        let fifo = directory.file("fifo")
        try #require(mkfifo(fifo, 0o644) == 0)
        let subdirectory = directory.file("rules.d")
        try #require(mkdir(subdirectory, 0o755) == 0)

        #expect(FileContents.readRegularFile(text) == Array("version: 1\nrules: []\n".utf8))
        #expect(FileContents.readRegularFile(empty) == [])
        #expect(FileContents.readRegularFile(large) == bytes)
        #expect(FileContents.readRegularFile(link) == Array("version: 1\nrules: []\n".utf8))
        // A file the kernel reports as empty that has contents all the same.
        #expect(FileContents.readRegularFile("/proc/self/cmdline")?.isEmpty == false)
        for refused in [dangling, fifo, subdirectory, directory.file("missing"), ""] {
            #expect(FileContents.readRegularFile(refused) == nil, "\(refused)")
        }
        for path in [text, empty, large, link, dangling, fifo, subdirectory, directory.file("missing"), ""] {
            #expect(FileContents.readRegularFile(path) == FileManager.default.contents(atPath: path).map { Array($0) })
        }
    }
}
