@preconcurrency import Glibc
import NetRulesSystem
import Testing

@testable import NetRulesActions

/// Kills a process that is replacing a file, at random moments, and checks the file is never torn.
///
/// The writer is this test binary itself, started again with `--filter writerChildProcess` and an
/// environment variable naming the target; `writerChildProcess` is enabled only in that child.
@Suite(.timeLimit(.minutes(5)))
struct AtomicReplaceCrashTests {
    static let targetVariable = "NETRULES_TEST_ATOMIC_TARGET"
    static var writerTarget: String? { getenv(targetVariable).map { String(cString: $0) } }

    /// Version `n` of the file: a header, a body whose size depends on `n`, and a trailer.
    static func version(_ n: Int) -> [UInt8] {
        let size = 4096 * (1 + n % 16) + n % 97
        return Array("netrules-atomic v=\(n) size=\(size)\n".utf8) + [UInt8](repeating: UInt8(n % 251), count: size)
            + Array("\nend v=\(n)\n".utf8)
    }

    /// Whether `bytes` is exactly one complete version.
    static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return false }
        let header = String(decoding: bytes[..<newline], as: UTF8.self)
        guard header.hasPrefix("netrules-atomic v="), let n = Int(header.dropFirst(18).prefix { $0 != " " }) else {
            return false
        }
        return bytes == version(n)
    }

    @Test(
        .enabled(if: writerTarget != nil, "only in the child process that atomicReplaceNeverTearsUnderSIGKILL starts"))
    func writerChildProcess() throws {
        let target = try #require(Self.writerTarget)
        let deadline = ContinuousClock.now + .seconds(30)  // an orphaned writer stops on its own
        var n = 1
        while ContinuousClock.now < deadline {
            try AtomicFile.replace(target, with: Self.version(n), mode: 0o644)
            if n == 1 { Fixtures.writeFile(target + ".started", []) }
            n += 1
        }
    }

    @Test func atomicReplaceNeverTearsUnderSIGKILL() async throws {
        let directory = TemporaryDirectory()
        let trials = 200
        var reads = 0
        var kills = 0
        for trial in 0..<trials {
            let target = directory.file("state-\(trial)")
            Fixtures.writeFile(target, Self.version(0))
            let pid = try TestBinaryChild.spawn(test: "writerChildProcess", environment: [Self.targetVariable: target])
            // Start killing only once the writer is in its loop, then at a random moment of it.
            var started = false
            for _ in 0..<5000 where !started {
                started = Fixtures.exists(target + ".started")
                if !started { usleep(1000) }
            }
            #expect(started, "the writer child never started")
            let killAt = ContinuousClock.now + .microseconds(Int.random(in: 0...15_000))
            while ContinuousClock.now < killAt {
                // A reader racing the writer must also only ever see whole versions.
                let seen = try #require(Fixtures.readFile(target))
                #expect(Self.isComplete(seen), "reader saw a torn file (\(seen.count) bytes) in trial \(trial)")
                reads += 1
            }
            kill(pid, SIGKILL)
            var status: CInt = 0
            waitpid(pid, &status, 0)
            if status & 0x7F == SIGKILL { kills += 1 }
            let final = try #require(Fixtures.readFile(target))
            #expect(Self.isComplete(final), "torn file after SIGKILL in trial \(trial): \(final.count) bytes")
        }
        #expect(kills == trials, "only \(kills) of \(trials) writers died by SIGKILL (the rest ended on their own)")
        #expect(reads > trials)
    }
}
