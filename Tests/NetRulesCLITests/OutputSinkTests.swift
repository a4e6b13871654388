import Glibc
import Testing

@testable import NetRulesCLI

/// Sinks keep every write whole when several tasks write at once.
@Suite(.timeLimit(.minutes(1)))
struct OutputSinkTests {
    static let lines = (0..<200).map { "line \($0) ✓\n" }

    @Test func bufferedSinkKeepsConcurrentWritesWhole() async {
        let sink = BufferedOutputSink()
        await Self.writeConcurrently(Self.lines, to: sink)
        #expect(Self.sortedLines(sink.text) == Self.lines.sorted())
    }

    @Test func standardSinkWritesEveryByteToItsDescriptor() async throws {
        var descriptors: [CInt] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        defer { close(descriptors[0]) }
        let sink = StandardOutputSink(fileDescriptor: descriptors[1])
        // Fewer bytes than a pipe buffers, so the writers never wait for this reader.
        await Self.writeConcurrently(Self.lines, to: sink)
        sink.write("")
        close(descriptors[1])

        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptors[0], $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += chunk[..<count]
        }
        #expect(Self.sortedLines(String(decoding: received, as: UTF8.self)) == Self.lines.sorted())
    }

    @Test func sharedStreamsExist() {
        #expect(StandardOutputSink.standardOutput !== StandardOutputSink.standardError)
    }

    private static func writeConcurrently(_ lines: [String], to sink: some TextOutputSink) async {
        await withTaskGroup(of: Void.self) { group in
            for line in lines {
                group.addTask { sink.write(line) }
            }
        }
    }

    private static func sortedLines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0 + "\n" }.sorted()
    }
}
