@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

@Suite(.timeLimit(.minutes(1)))
struct ChildProcessTests {
    private func shell(_ script: String, stdin: [UInt8] = [], timeout: Duration = .seconds(10)) -> ChildProcess {
        ChildProcess(
            executablePath: "/bin/sh", arguments: [Array("sh".utf8), Array("-c".utf8), Array(script.utf8)],
            environment: [Array("PATH=/usr/bin:/bin".utf8)], standardInput: stdin, timeout: timeout,
            terminationGrace: .milliseconds(300)
        )
    }

    @Test func exitStatusAndOutputAreRecorded() async throws {
        let outcome = try await shell("echo out; echo err >&2; exit 3").run(on: .testLoop)
        #expect(outcome.termination == .exited(3))
        #expect(outcome.standardOutput.bytes == Array("out\n".utf8))
        #expect(outcome.standardError.bytes == Array("err\n".utf8))
        #expect(!outcome.timedOut)
    }

    @Test func standardInputIsDeliveredWhole() async throws {
        // Larger than a pipe buffer, so the feeding really has to wait for the reader.
        let input = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let outcome = try await shell("wc -c", stdin: input).run(on: .testLoop)
        #expect(String(decoding: outcome.standardOutput.bytes, as: UTF8.self).trimmingCharacters == "300000")
    }

    @Test func aChildThatIgnoresStandardInputDoesNotHurtUs() async throws {
        let input = [UInt8](repeating: 0x41, count: 1_000_000)
        let outcome = try await shell("exit 0", stdin: input).run(on: .testLoop)
        #expect(outcome.termination == .exited(0))
    }

    @Test func captureIsBounded() async throws {
        var process = shell("head -c 100000 /dev/zero")
        process.outputLimit = 1000
        let outcome = try await process.run(on: .testLoop)
        #expect(outcome.standardOutput.bytes.count == 1000)
        #expect(outcome.standardOutput.discardedCount == 99_000)
    }

    @Test func timeoutKillsTheChildAndItsGrandchild() async throws {
        let directory = TemporaryDirectory()
        let pidFile = directory.file("grandchild.pid")
        // The grandchild ignores SIGTERM, so only the group-wide SIGKILL can end it.
        let script = "sh -c 'trap \"\" TERM; echo $$ > \(pidFile); exec sleep 60' & sleep 60"
        let started = ContinuousClock.now
        let outcome = try await shell(script, timeout: .milliseconds(500)).run(on: .testLoop)
        #expect(outcome.timedOut)
        #expect(outcome.termination == .signaled(SIGTERM))
        #expect(ContinuousClock.now - started < .seconds(5))
        let grandchild = try #require(Fixtures.readFile(pidFile)).compactMap { $0 >= 0x30 && $0 <= 0x39 ? $0 : nil }
        let pid = try #require(pid_t(String(decoding: grandchild, as: UTF8.self)))
        #expect(await ProcessProbe.isGone(pid), "grandchild \(pid) survived the timeout")
    }

    @Test func aTermIgnoringChildIsKilledAfterTheGracePeriod() async throws {
        let outcome = try await shell("trap '' TERM; sleep 60", timeout: .milliseconds(200)).run(on: .testLoop)
        #expect(outcome.timedOut)
        #expect(outcome.termination == .signaled(SIGKILL))
    }

    @Test func aBackgroundProcessDoesNotHoldTheActionOpen() async throws {
        let outcome = try await shell("sleep 3 & echo started").run(on: .testLoop)
        #expect(outcome.termination == .exited(0))
        #expect(outcome.duration < .seconds(2))
        #expect(outcome.standardOutput.bytes == Array("started\n".utf8))
    }

    @Test func childInheritsOnlyStandardDescriptors() async throws {
        // A descriptor of ours without close-on-exec, to show the spawn closes even those.
        let leaky = open("/dev/null", O_RDONLY)
        defer { close(leaky) }
        let outcome = try await shell("ls /proc/self/fd").run(on: .testLoop)
        let listed = String(decoding: outcome.standardOutput.bytes, as: UTF8.self).split(separator: "\n")
        // 0, 1, 2, and the directory `ls` itself opened to list them.
        #expect(listed.count == 4, "descriptors in the child: \(listed)")
    }

    @Test func theChildIsReapedAndRunsInItsOwnGroup() async throws {
        let outcome = try await shell("ps -o pgid= -p $$").run(on: .testLoop)
        let group = pid_t(String(decoding: outcome.standardOutput.bytes, as: UTF8.self).trimmingCharacters)
        #expect(group == outcome.pid)
        // Reaped: no zombie left, so waitpid knows no such child any more.
        var status: CInt = 0
        #expect(waitpid(outcome.pid, &status, WNOHANG) == -1 && errno == ECHILD)
    }

    @Test func spawnFailureIsAnError() async {
        var process = shell("true")
        process.executablePath = "/nonexistent/sh"
        await #expect(throws: SystemCallError.self) { try await process.run(on: .testLoop) }
    }
}

/// Looks at /proc to tell whether a process is gone (or only a zombie of someone else's).
enum ProcessProbe {
    /// Waits up to two seconds for `pid` to be gone or a zombie.
    static func isGone(_ pid: pid_t) async -> Bool {
        for _ in 0..<200 {
            guard let stat = Fixtures.readFile("/proc/\(pid)/stat") else { return true }
            // The state follows the parenthesised command name.
            if let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count,
                stat[close + 2] == UInt8(ascii: "Z")
            {
                return true
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

extension String {
    var trimmingCharacters: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
