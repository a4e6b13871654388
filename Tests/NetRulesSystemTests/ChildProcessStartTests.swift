@preconcurrency import Glibc
import NetRulesSystem
import Testing

/// `ChildProcess` starts a program with clone3 (`sys_spawn`) where the kernel allows it and with
/// posix_spawn(3) elsewhere; the program cannot tell which: the same process group, signal state,
/// descriptors, directory, environment and input, and the same errors when it cannot start.
@Suite(.timeLimit(.minutes(1)), .serialized) struct ChildProcessStartTests {
    private func process(
        _ path: String, _ arguments: [String], directory: String? = nil, posixSpawn: Bool
    ) -> ChildProcess {
        var process = ChildProcess(
            executablePath: path, arguments: arguments.map { Array($0.utf8) },
            environment: [Array("PATH=/usr/bin:/bin".utf8), Array("NETRULES_RULE=r 1".utf8)],
            workingDirectory: directory, standardInput: Array("input\n".utf8), timeout: .seconds(10))
        process.usesPosixSpawn = posixSpawn
        return process
    }

    private func output(_ path: String, _ arguments: [String], directory: String? = nil, posixSpawn: Bool) throws
        -> String
    {
        let outcome = try process(path, arguments, directory: directory, posixSpawn: posixSpawn).runBlocking().get()
        #expect(outcome.termination == .exited(0), "\(arguments) exited with \(outcome.termination)")
        return String(decoding: outcome.standardOutput.bytes, as: UTF8.self)
    }

    @Test func bothStartsGiveTheProgramTheSameProcess() throws {
        // An ignored signal and a handled one here: neither may reach the program.
        let previousPipe = signal(SIGPIPE, SIG_IGN)
        let previousUser = signal(SIGUSR2, { _ in })
        defer {
            signal(SIGPIPE, previousPipe)
            signal(SIGUSR2, previousUser)
        }
        var seen: [[String]] = []
        for posixSpawn in [false, true] {
            let status = try output("/bin/cat", ["cat", "/proc/self/status"], posixSpawn: posixSpawn)
            let signals = status.split(separator: "\n").filter { $0.hasPrefix("Sig") && !$0.hasPrefix("SigQ") }
                .map(String.init)
            #expect(signals.contains("SigBlk:\t0000000000000000"), "\(signals)")
            #expect(signals.contains("SigCgt:\t0000000000000000"), "\(signals)")
            #expect(
                signals.contains { $0.hasPrefix("SigIgn:") && $0.hasSuffix("0000") }, "SIGPIPE inherited: \(signals)")

            // /proc/self/stat: "pid (comm) state ppid pgrp …": the program leads a group of its own.
            let stat = try output("/bin/cat", ["cat", "/proc/self/stat"], posixSpawn: posixSpawn)
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            let pid = stat.split(separator: " ").first.map(String.init)
            #expect(fields.count > 3 && String(fields[2]) == pid, "not a group leader: \(stat)")

            let descriptors = try output("/bin/ls", ["ls", "/proc/self/fd"], posixSpawn: posixSpawn)
            let directory = try output("/bin/pwd", ["pwd", "-P"], directory: "/usr", posixSpawn: posixSpawn)
            let environment = try output("/usr/bin/env", ["env"], posixSpawn: posixSpawn)
            let input = try output("/bin/cat", ["cat"], posixSpawn: posixSpawn)
            seen.append(signals + [descriptors, directory, environment, input])
        }
        #expect(seen[0] == seen[1])
        // ls sees its own directory descriptor (3) and nothing of ours.
        #expect(seen[0].suffix(4) == ["0\n1\n2\n3\n", "/usr\n", "PATH=/usr/bin:/bin\nNETRULES_RULE=r 1\n", "input\n"])
    }

    @Test func bothStartsReportAProgramThatCannotStartTheSameWay() throws {
        for posixSpawn in [false, true] {
            for (path, expected) in [("/nonexistent/program", ENOENT), ("/usr", EACCES)] {
                let ended = process(path, ["program"], posixSpawn: posixSpawn).runBlocking()
                guard case .failure(let error) = ended else {
                    Issue.record("\(path) started (posix_spawn: \(posixSpawn))")
                    continue
                }
                #expect(error.errno == Errno(rawValue: expected), "\(path), posix_spawn: \(posixSpawn): \(error)")
            }
            let missing = process("/bin/true", ["true"], directory: "/nonexistent-directory", posixSpawn: posixSpawn)
            guard case .failure(let error) = missing.runBlocking() else {
                Issue.record("started in a missing directory (posix_spawn: \(posixSpawn))")
                continue
            }
            #expect(error.errno == Errno(rawValue: ENOENT))
        }
    }
}
