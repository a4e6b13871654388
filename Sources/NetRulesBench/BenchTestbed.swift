import NetRulesCLI
import NetRulesCore
import NetRulesDaemon
internal import NetRulesSystem
import NetRulesTesting

/// A benchmark's daemon and the processes it starts, in a network namespace of the benchmark's
/// own (NetRulesTesting's `TestNamespace`, the tests' one helper), all removed by `tearDown()`
/// however the benchmark ends. Nothing in it reaches outside: it holds only loopback and veth
/// pairs whose both ends are inside.
final class BenchTestbed: @unchecked Sendable {
    let namespace: TestNamespace
    /// The `netrules` executable whose daemon `startDaemon` starts.
    let netrules: String
    /// A fresh directory under /tmp for rules, state, stamps and logs.
    let directory: String
    private var tasks: [Task<Void, Never>] = []

    /// The namespace's name (`nrbench-<random>`), which the work directory's path holds too.
    var name: String { namespace.name }
    /// The network namespace's path, for threads that join it.
    var path: String { namespace.path }
    /// The event loop the daemon's and the tools' processes are watched on.
    let loop: ThreadExecutor

    /// Creates `nrbench-<random>` with its loopback up, and a work directory; its daemon will be
    /// `netrules`.
    /// - Throws: `CommandError.runtime` when not root or when `ip` fails.
    init(netrules: String, loop: ThreadExecutor) async throws {
        self.netrules = netrules
        self.loop = loop
        guard BenchProcess.isRoot else {
            throw CommandError.runtime("this benchmark makes a network namespace: run it as root")
        }
        do {
            namespace = try TestNamespace.create(prefix: "nrbench")
        } catch {
            throw CommandError.runtime("cannot make the benchmark's network namespace: \(error)")
        }
        directory = "/tmp/" + namespace.name
        do {
            try await BenchProcess.check(["mkdir", "-m", "0700", directory], on: loop)
        } catch {
            namespace.delete()
            throw error
        }
    }

    /// Adds the veth pair `a`–`b`, both ends in the namespace, `b` up (so `a` has carrier when up).
    func addVethPair(_ a: String, _ b: String) throws {
        try namespace.addVethPair(a, b)
    }

    /// Starts `argv` inside the namespace (in a process group of its own), output to `log`; it runs
    /// until `tearDown()`.
    func start(_ argv: [String], log: String, environment: [String: String] = [:]) {
        let command = ["ip", "netns", "exec", name] + argv
        let loop = self.loop
        tasks.append(
            Task(executorPreference: loop) {
                _ = await BenchProcess.run(
                    command, on: loop, environment: environment, log: log, timeout: .seconds(24 * 3600))
            })
    }

    /// Starts `netrules run RULES` in the namespace, state under the work directory, and returns
    /// once its control socket answers.
    func startDaemon(rules: String, extraArguments: [String] = []) async throws -> String {
        let socket = directory + "/control.sock"
        start(
            [netrules, "run", rules, "--state-dir", directory + "/state", "--socket", socket]
                + extraArguments,
            log: directory + "/daemon.log", environment: ["HOME": directory])
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline {
            // The daemon is not ready until it answers; a refused or failed connection is tried
            // again until the 30 s deadline, whose error names the log.
            if let client = try? ControlClient.connect(path: socket, timeout: .seconds(1)),
                (try? await client.response(to: ControlRequest.rules.document)) != nil
            {
                return socket
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CommandError.runtime("the daemon did not answer within 30 s; see \(directory)/daemon.log")
    }

    /// Stops every process started here (SIGTERM to its group, then SIGKILL), kills whatever is left
    /// in the namespace, and deletes the namespace and the work directory.
    func tearDown() async {
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        tasks = []
        _ = await BenchProcess.run(["sh", "-c", "ip netns pids \(name) | xargs -r kill -9"], on: loop)
        namespace.delete()
        if directory.hasPrefix("/tmp/nrbench-") { _ = await BenchProcess.run(["rm", "-rf", directory], on: loop) }
    }
}
