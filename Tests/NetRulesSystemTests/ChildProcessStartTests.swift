@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting
import Testing

/// `ChildProcess` starts a program with posix_spawn(3) as a clean process: a group of its own, no
/// signal blocked, handled or ignored that the parent set, only its three descriptors, its directory,
/// environment and input; and it reports a program that cannot start with the exec's error.
@Suite(.timeLimit(.minutes(1)), .serialized) struct ChildProcessStartTests {
    private func process(_ path: String, _ arguments: [String], directory: String? = nil) -> ChildProcess {
        ChildProcess(
            executablePath: path, arguments: arguments.map { Array($0.utf8) },
            environment: [Array("PATH=/usr/bin:/bin".utf8), Array("NETRULES_RULE=r 1".utf8)],
            workingDirectory: directory, standardInput: Array("input\n".utf8), timeout: .seconds(10))
    }

    private func ended(_ process: ChildProcess) async -> Result<ChildProcessOutcome, SystemCallError> {
        do throws(SystemCallError) {
            return .success(try await process.run(on: .testLoop))
        } catch {
            return .failure(error)
        }
    }

    private func output(_ path: String, _ arguments: [String], directory: String? = nil) async throws -> String {
        let outcome = try await process(path, arguments, directory: directory).run(on: .testLoop)
        #expect(outcome.termination == .exited(0), "\(arguments) exited with \(outcome.termination)")
        return String(decoding: outcome.standardOutput.bytes, as: UTF8.self)
    }

    @Test func theProgramGetsAProcessOfItsOwn() async throws {
        // An ignored signal and a handled one here: neither may reach the program.
        let previousPipe = signal(SIGPIPE, SIG_IGN)
        let previousUser = signal(SIGUSR2, { _ in })
        defer {
            signal(SIGPIPE, previousPipe)
            signal(SIGUSR2, previousUser)
        }
        let status = try await output("/bin/cat", ["cat", "/proc/self/status"])
        let signals = status.split(separator: "\n").filter { $0.hasPrefix("Sig") && !$0.hasPrefix("SigQ") }
            .map(String.init)
        #expect(signals.contains("SigBlk:\t0000000000000000"), "\(signals)")
        #expect(signals.contains("SigCgt:\t0000000000000000"), "\(signals)")
        #expect(signals.contains { $0.hasPrefix("SigIgn:") && $0.hasSuffix("0000") }, "SIGPIPE inherited: \(signals)")

        // /proc/self/stat: "pid (comm) state ppid pgrp …": the program leads a group of its own.
        let stat = try await output("/bin/cat", ["cat", "/proc/self/stat"])
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        let pid = stat.split(separator: " ").first.map(String.init)
        #expect(fields.count > 3 && String(fields[2]) == pid, "not a group leader: \(stat)")

        // ls sees its own directory descriptor (3) and nothing of ours.
        #expect(try await output("/bin/ls", ["ls", "/proc/self/fd"]) == "0\n1\n2\n3\n")
        #expect(try await output("/bin/pwd", ["pwd", "-P"], directory: "/usr") == "/usr\n")
        #expect(try await output("/usr/bin/env", ["env"]) == "PATH=/usr/bin:/bin\nNETRULES_RULE=r 1\n")
        #expect(try await output("/bin/cat", ["cat"]) == "input\n")
    }

    @Test func aProgramThatCannotStartIsReportedWithTheExecsError() async throws {
        for (path, expected) in [("/nonexistent/program", ENOENT), ("/usr", EACCES)] {
            let ended = await ended(process(path, ["program"]))
            guard case .failure(let error) = ended else {
                Issue.record("\(path) started")
                continue
            }
            #expect(error.errno == Errno(rawValue: expected), "\(path): \(error)")
        }
        let missing = process("/bin/true", ["true"], directory: "/nonexistent-directory")
        guard case .failure(let error) = await ended(missing) else {
            Issue.record("started in a missing directory")
            return
        }
        #expect(error.errno == Errno(rawValue: ENOENT))
    }
}
