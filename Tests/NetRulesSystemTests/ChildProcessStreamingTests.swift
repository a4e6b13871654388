@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting
import Testing

/// The parts of `ChildProcess` observer plugins use: a streaming stdout reader, no timeout, a stop
/// by cancelling the supervising task, and stderr passed through.
@Suite(.timeLimit(.minutes(1)))
struct ChildProcessStreamingTests {
    private func shell(_ script: String, standardErrorPassesThrough: Bool = false) -> ChildProcess {
        ChildProcess(
            executablePath: "/bin/sh", arguments: [Array("sh".utf8), Array("-c".utf8), Array(script.utf8)],
            environment: [Array("PATH=/usr/bin:/bin".utf8)], timeout: nil, terminationGrace: .milliseconds(300),
            standardErrorPassesThrough: standardErrorPassesThrough)
    }

    @Test func aStreamingReaderSeesOutputWhileTheChildRunsAndCancellingItsTaskEndsIt() async throws {
        let process = shell("echo first; exec sleep 600")
        let started = ContinuousClock.now
        let task = Task { () async throws -> (ChildProcessOutcome, [UInt8]) in
            var seen: [UInt8] = []
            let outcome = try await process.run(on: .testLoop) { chunk in
                seen += chunk
                // The reader runs in the supervising task: cancelling it is the plugin's stop.
                if seen.contains(UInt8(ascii: "\n")) { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return (outcome, seen)
        }
        let (outcome, seen) = try await task.value
        #expect(seen == Array("first\n".utf8))
        #expect(outcome.stopped)
        #expect(outcome.termination == .signaled(SIGTERM))
        #expect(outcome.standardOutput.bytes.isEmpty)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aChildThatIgnoresSIGTERMIsKilledAfterTheGraceOnceItsTaskIsCancelled() async throws {
        let process = shell("trap '' TERM; echo ready; while :; do sleep 0.05; done")
        let started = ContinuousClock.now
        let task = Task { () async throws -> ChildProcessOutcome in
            try await process.run(on: .testLoop) { _ in withUnsafeCurrentTask { $0?.cancel() } }
        }
        let outcome = try await task.value
        #expect(outcome.stopped)
        #expect(outcome.termination == .signaled(SIGKILL))
        // The grace is 300 ms: the wait went on after the cancellation, up to the SIGKILL.
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func withoutATimeoutTheChildRunsToItsEnd() async throws {
        let outcome = try await shell("sleep 0.3; exit 4").run(on: .testLoop)
        #expect(outcome.termination == .exited(4))
        #expect(outcome.shellStatus == 4)
        #expect(!outcome.timedOut && !outcome.stopped)
        #expect(outcome.duration >= .milliseconds(300))
    }

    @Test func aSignalledChildHasTheShellsStatus() async throws {
        let outcome = try await shell("kill -KILL $$").run(on: .testLoop)
        #expect(outcome.shellStatus == 128 + SIGKILL)
    }

    @Test func standardErrorCanPassThroughToOurs() async throws {
        let ours = try #require(Self.link("/proc/self/fd/2"))
        let outcome = try await shell("readlink /proc/self/fd/2", standardErrorPassesThrough: true).run(on: .testLoop)
        #expect(String(decoding: outcome.standardOutput.bytes, as: UTF8.self) == ours + "\n")
        #expect(outcome.standardError.bytes.isEmpty)
    }

    @Test func theInheritedEnvironmentIsOurs() throws {
        // Read, not set: setenv would race with other tests reading the environment.
        let path = String(cString: try #require(getenv("PATH")))
        #expect(ChildProcess.inheritedEnvironment.contains(Array("PATH=\(path)".utf8)))
    }

    private static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
