@preconcurrency import Glibc
import NetRulesSystem

/// A spawned program: its pid and, optionally, the read end of its standard output.
///
/// Spawned with `posix_spawn` in its own process group, so stopping it reaches its children too.
final class ChildProcess: Sendable {
    /// The child's pid (also its process group id).
    let pid: pid_t
    /// The read end of the child's stdout pipe, when requested.
    let output: FileDescriptor?

    private init(pid: pid_t, output: FileDescriptor?) {
        self.pid = pid
        self.output = output
    }

    /// Starts `argv[0]` (a path, or a name looked up in `PATH`) with the remaining arguments.
    /// - Parameters:
    ///   - captureOutput: connect stdout to a pipe the caller reads (non-blocking, close-on-exec).
    ///   - quiet: send stdout and stderr to /dev/null (for helper commands whose output we ignore).
    /// - Throws: `SystemCallError` from `pipe2` or `posix_spawn`.
    static func spawn(_ argv: [String], captureOutput: Bool = false, quiet: Bool = false) throws -> ChildProcess {
        precondition(!argv.isEmpty, "a command needs a program")
        var fds: [CInt] = [-1, -1]
        if captureOutput {
            let ends = try sys_pipe2(O_CLOEXEC).get(call: "pipe2")
            fds = [ends.read, ends.write]
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if captureOutput {
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        } else if quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        // The child must not inherit a signal mask or dispositions from whatever thread spawned it.
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let program = argv[0].contains("/") ? argv[0] : (lookUp(argv[0]) ?? argv[0])
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        let result = cArguments.withUnsafeBufferPointer { arguments in
            sys_posix_spawn(program, &actions, &attributes, arguments.baseAddress!, environ)
        }
        if captureOutput { _ = sys_close(fds[1]) }
        let pid: pid_t
        do {
            pid = try result.get(call: "posix_spawn")
        } catch {
            if captureOutput { _ = sys_close(fds[0]) }
            throw error
        }
        return ChildProcess(pid: pid, output: captureOutput ? FileDescriptor(taking: fds[0]) : nil)
    }

    /// Finds an executable in `PATH`.
    static func lookUp(_ name: String, path: String? = nil) -> String? {
        let search = path ?? (getenv("PATH").map { String(cString: $0) } ?? "/usr/sbin:/usr/bin:/sbin:/bin")
        for directory in search.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if case .success = sys_access(candidate, X_OK) { return candidate }
        }
        return nil
    }

    /// Waits for the child to exit and returns its exit status (128+N for a signal N).
    func wait() throws -> Int32 {
        var status: CInt = 0
        _ = try sys_waitpid(pid, &status, 0).get(call: "waitpid")
        return ChildProcess.exitCode(status)
    }

    /// The exit status if the child has exited, without blocking.
    func poll() throws -> Int32? {
        var status: CInt = 0
        let reaped = try sys_waitpid(pid, &status, WNOHANG).get(call: "waitpid")
        return reaped == 0 ? nil : ChildProcess.exitCode(status)
    }

    /// Sends a signal to the child's whole process group.
    func signalGroup(_ signal: CInt) {
        _ = sys_kill(-pid, signal)
    }

    private static func exitCode(_ status: CInt) -> Int32 {
        // WIFEXITED/WEXITSTATUS are macros Swift cannot import; the encoding is the classic one.
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Runs a command to completion and returns its exit status and standard output.
    static func run(_ argv: [String]) throws -> (status: Int32, output: String) {
        let child = try spawn(argv, captureOutput: true)
        var collected: [UInt8] = []
        if let output = child.output {
            try output.closeAfter { output in
                try output.withFileDescriptor { fd in
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let count = try buffer.withUnsafeMutableBytes {
                            try sys_read(fd, $0).get(call: "read")
                        }
                        if count == 0 { break }
                        collected += buffer[0..<count]
                    }
                }
            }
        }
        return (try child.wait(), String(decoding: collected, as: UTF8.self))
    }
}
