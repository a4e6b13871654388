@preconcurrency import Glibc
import Testing

/// Starts this test binary again as a child process running one test, so a test can SIGKILL a
/// real process mid-work (no helper executable, no Package.swift change).
enum TestBinaryChild {
    /// Spawns `<this binary> --testing-library swift-testing --filter <test>` with `environment`
    /// (and `PATH`), its output discarded; returns its pid.
    static func spawn(test: String, environment: [String: String]) throws -> pid_t {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        try #require(length > 0, "cannot find this test binary through /proc/self/exe")
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let arguments = [executable, "--testing-library", "swift-testing", "--filter", test]
        let variables = environment.map { "\($0.key)=\($0.value)" } + ["PATH=/usr/bin:/bin"]
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, nil, &argv, &envp)
        try #require(result == 0, "posix_spawn of the child test process failed: \(result)")
        return pid
    }
}
