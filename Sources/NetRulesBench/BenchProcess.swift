@preconcurrency internal import Glibc
import NetRulesCLI
import NetRulesCore
internal import NetRulesSystem

/// Starting the programs a benchmark needs (`ip`, `sh`, the daemon), through the action runner's
/// `ChildProcess`: its own process group, stopped with SIGTERM then SIGKILL when the task is
/// cancelled.
enum BenchProcess {
    static var isRoot: Bool { geteuid() == 0 }

    /// This executable's path, resolved from /proc/self/exe.
    static let executable: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// The `netrules` the daemon benchmarks start unless told otherwise: the one in this
    /// executable's directory (`.build/release/netrules` beside `.build/release/netrules-bench`).
    static var netrulesBesideThisExecutable: String {
        String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)]) + "/netrules"
    }

    /// `path` made absolute, once it names an executable file.
    /// - Throws: `CommandError.runtime` when it does not.
    static func checked(_ path: String) throws -> String {
        // Access(2) fails for a missing file, a directory or no execute bit alike, and the message
        // below says what to do in every case.
        guard (try? sys_access(path, X_OK).get()) != nil else {
            throw CommandError.runtime(
                "\(path) is not an executable netrules: build it (swift build -c release --product netrules) or pass --netrules PATH"
            )
        }
        if path.hasPrefix("/") { return path }
        guard case .success(let absolute) = sys_realpath(path) else {
            throw CommandError.runtime("cannot resolve \(path)")
        }
        return absolute
    }

    /// The directories searched for a program named without a slash.
    static let searchPath = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

    /// Runs `argv` to its end (or until cancelled, or `timeout`); with `log`, its stdout and stderr
    /// are appended to that file instead of being captured. Nil when it could not be started.
    static func run(
        _ argv: [String], on loop: ThreadExecutor, environment: [String: String] = [:], log: String? = nil,
        timeout: Duration = .seconds(60)
    ) async -> ChildProcessOutcome? {
        // The callers of run() clean up (kill, delete) and go on whatever happens;
        // check() and start() say why a program could not be started.
        try? await start(argv, on: loop, environment: environment, log: log, timeout: timeout)
    }

    /// Runs `argv` as `run` does.
    /// - Throws: `CommandError.runtime` naming the program when it is not found or cannot be spawned.
    static func start(
        _ argv: [String], on loop: ThreadExecutor, environment: [String: String] = [:], log: String? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> ChildProcessOutcome {
        var argv = argv
        if let log {
            // The shell opens the log and replaces itself with the program: one process, as before.
            argv = ["sh", "-c", "exec \"$@\" >>'\(log)' 2>&1", "sh"] + argv
        }
        guard let program = argv.first, let path = resolve(program) else {
            throw CommandError.runtime("cannot find \(argv.first ?? "?") in \(searchPath.joined(separator: ":"))")
        }
        var variables = ["PATH": searchPath.joined(separator: ":"), "LC_ALL": "C"]
        variables.merge(environment) { _, new in new }
        let process = ChildProcess(
            executablePath: path, arguments: argv.map { Array($0.utf8) },
            environment: variables.sorted { $0.key < $1.key }.map { Array("\($0.key)=\($0.value)".utf8) },
            timeout: timeout)
        do {
            return try await process.run(on: loop)
        } catch {
            throw CommandError.runtime("cannot start \(program): \(error)")
        }
    }

    /// Runs `argv` and throws, with its stderr, unless it exits 0.
    static func check(_ argv: [String], on loop: ThreadExecutor) async throws {
        let outcome = try await start(argv, on: loop)
        guard outcome.succeeded else {
            let detail = String(decoding: outcome.standardError.bytes, as: UTF8.self)
            throw CommandError.runtime("\(argv.joined(separator: " ")) failed (\(outcome.termination)): \(detail)")
        }
    }

    /// The full path of `program`.
    static func resolve(_ program: String) -> String? {
        if program.contains("/") { return program }
        return ExecutableSearch.find(program, along: searchPath.joined(separator: ":"), entries: .absoluteOnly)
    }

    /// A process's CPU time (user + system) in seconds, from /proc/PID/stat; nil when it is gone.
    static func cpuSeconds(of pid: Int32) -> Double? {
        cpuTicks(of: pid).map { Double($0) / Double(max(1, sysconf(Int32(_SC_CLK_TCK)))) }
    }

    /// utime + stime of the whole process, in clock ticks (`proc(5)`, fields 14 and 15).
    static func cpuTicks(of pid: Int32) -> Int64? {
        // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
        guard let text = readText("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return nil }
        return user + system
    }

    /// `VmRSS` and `Pss` of a process in KiB (/proc/PID/status and smaps_rollup).
    static func memory(of pid: Int32) -> (rss: Int, pss: Int)? {
        guard let rss = readText("/proc/\(pid)/status").flatMap({ field("VmRSS", in: $0) }),
            let pss = readText("/proc/\(pid)/smaps_rollup").flatMap({ field("Pss", in: $0) })
        else { return nil }
        return (rss, pss)
    }

    /// The number after `name:` on its line of a /proc file (`VmRSS:\t 19364 kB` → 19364).
    static func field(_ name: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) }
        }
        return nil
    }

    /// The pid of the `netrules run` process (`netrules` the executable) whose arguments mention
    /// `marker` (the daemon runs under `ip netns exec`, which execs it, so the pid is the one
    /// `start` spawned under `sh`).
    static func daemonPID(of netrules: String, marker: String) -> Int32? {
        guard case .success(let names) = sys_listDirectory("/proc") else { return nil }
        for name in names {
            guard let pid = Int32(name), let command = readText("/proc/\(pid)/cmdline") else { continue }
            let argv = command.split(separator: "\0").map(String.init)
            if argv.first == netrules, argv.dropFirst().first == "run", argv.contains(where: { $0.contains(marker) }) {
                return pid
            }
        }
        return nil
    }

    /// Writes `bytes` to a new file at `path` (mode 0644); false when it cannot.
    static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        guard case .success(let fd) = sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        else { return false }
        defer { _ = sys_close(fd) }
        var offset = 0
        while offset < bytes.count {
            guard case .success(let count) = bytes[offset...].withUnsafeBytes({ sys_write(fd, $0) }), count > 0 else {
                return false
            }
            offset += count
        }
        return true
    }

    /// How many names in `directory` end with `suffix` (0 when it cannot be read).
    static func count(in directory: String, suffix: String) -> Int {
        guard let handle = opendir(directory) else { return 0 }
        defer { closedir(handle) }
        var total = 0
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(suffix) { total += 1 }
        }
        return total
    }

    /// A small file's text (at most 1 MiB; /proc files report a size of 0, so it reads to the end), or nil.
    static func readText(_ path: String) -> String? {
        guard case .success(let fd) = sys_open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { _ = sys_close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count < 1 << 20 {
            guard case .success(let count) = chunk.withUnsafeMutableBytes({ sys_read(fd, $0) }), count > 0 else {
                break
            }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
