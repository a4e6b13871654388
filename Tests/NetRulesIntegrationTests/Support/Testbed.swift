import Foundation
@preconcurrency import Glibc
import NetRulesTesting
import Synchronization
import Testing

/// A private little network for one scenario, and everything the daemon needs to run in it.
///
/// Two namespaces named `nre-<random>`: ``host``, where `netrules run` runs with its link
/// ``link`` (10.250.1.1/24), and ``peer``, its gateway (10.250.1.2/24 on ``peerLink``), where
/// the test's HTTP servers listen. A veth pair joins them, so no packet ever leaves the
/// machine. The temporary directory holds the rule files, state dir, log, notify socket and
/// the files actions write. ``run(networkUp:_:)`` always deletes all of it and kills every
/// process left in either namespace, also when the scenario fails.
final class Testbed: Sendable {
    static let link = "nre0"
    static let peerLink = "nrp0"
    static let hostAddress = "10.250.1.1"
    static let peerAddress = "10.250.1.2"

    /// Whether namespaces can be made here: `ip netns` needs root.
    static let isAvailable = geteuid() == 0

    /// The daemon's `--log-level`: `info`, or `NETRULES_E2E_LOG_LEVEL` (say `debug` to chase a failure).
    static let logLevel = ProcessInfo.processInfo.environment["NETRULES_E2E_LOG_LEVEL"] ?? "info"
    /// The loop's budget (`LoopBudget`): issue 23's 10 ms. Each job past it is reported and printed.
    ///
    /// `state.json`'s durable replace runs on the blocking pool. Past 10 ms the check still finds,
    /// under load, webhook outbox writes and history compaction (15-65 ms beside two builds), so a
    /// test fails only past `loopFailureMilliseconds`: a job that sleeps, waits on the network or
    /// loops is caught; those known ones are in design note 0004.
    static let loopBudgetMilliseconds = "10"
    static let loopFailureMilliseconds = 250

    /// Shown in the test report when the suite skips.
    static let unavailableReason: Comment =
        "SKIPPED: the daemon integration tests need root (they create network namespaces); none of them ran"

    let host: TestNamespace
    let peer: TestNamespace
    /// The scenario's temporary directory, `/tmp/nre-<random>`.
    let directory: String
    let notify: NotifySocket

    private struct Owned {
        var servers: [TestHTTPServer] = []
        var daemons: [DaemonProcess] = []
    }
    private let owned = Mutex(Owned())

    private init(networkUp: Bool) throws {
        directory = "/tmp/nre-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        notify = try NotifySocket(path: directory + "/notify.sock")
        host = try TestNamespace.create(prefix: "nre")
        do {
            peer = try TestNamespace.create(prefix: "nre")
        } catch {
            host.delete()
            throw error
        }
        try host.ip("link", "add", Self.link, "type", "veth", "peer", "name", Self.peerLink, "netns", peer.name)
        try peer.ip("addr", "add", "\(Self.peerAddress)/24", "dev", Self.peerLink)
        try peer.ip("link", "set", Self.peerLink, "up")
        if networkUp { try bringNetworkUp() }
    }

    /// Makes a testbed, runs `body`, and tears everything down whatever happens; when `body`
    /// throws (or `NETRULES_E2E_LOG` is set) the daemon's log is printed, so the reason is in the test output.
    static func run(networkUp: Bool = true, _ body: (Testbed) async throws -> Void) async throws {
        let testbed = try Testbed(networkUp: networkUp)
        defer { testbed.tearDown() }
        do {
            try await body(testbed)
            // STYLE §16's debug check: the daemons ran with NETRULES_LOOP_BUDGET_MS (LoopBudget).
            // Every report is printed; one past `loopFailureMilliseconds` fails the test.
            let blocked = testbed.log.split(separator: "\n").filter { $0.contains("the event loop was blocked") }
            if !blocked.isEmpty { print("netrules loop budget: \(blocked.joined(separator: "; "))") }
            let worst =
                blocked.compactMap { line in
                    line.split(separator: " ").firstIndex(of: "for").flatMap { Int(line.split(separator: " ")[$0 + 1]) }
                }.max() ?? 0
            if worst > loopFailureMilliseconds {
                Issue.record("a job blocked the daemon's loop for \(worst) ms: \(blocked.joined(separator: "; "))")
            }
            if ProcessInfo.processInfo.environment["NETRULES_E2E_LOG"] != nil { testbed.printLog() }
        } catch {
            testbed.printLog()
            throw error
        }
    }

    /// The host side comes up the way a DHCP client would leave it: link up, an address, and a
    /// default route via the peer.
    func bringNetworkUp() throws {
        try host.ip("link", "set", Self.link, "up")
        try host.ip("addr", "add", "\(Self.hostAddress)/24", "dev", Self.link)
        try host.ip("route", "add", "default", "via", Self.peerAddress)
    }

    /// A path inside the scenario's directory.
    func path(_ name: String) -> String { directory + "/" + name }

    /// Replaces the file `name` atomically (write, then rename), so a watching daemon never reads it half-written.
    @discardableResult
    func write(_ text: String, to name: String, executable: Bool = false) throws -> String {
        let final = path(name)
        let temporary = final + ".tmp"
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        if executable { chmod(temporary, 0o755) }
        guard rename(temporary, final) == 0 else { throw TestError("rename \(temporary): errno \(errno)") }
        return final
    }

    /// Starts an HTTP server in the peer namespace; it is stopped at tear-down.
    func serve(_ handler: @escaping @Sendable (TestHTTPServer.Request) -> TestHTTPServer.Reply) throws -> TestHTTPServer
    {
        let server = try TestHTTPServer(address: Self.peerAddress, in: peer, handler: handler)
        owned.withLock { $0.servers.append(server) }
        return server
    }

    /// The daemon's combined standard output and error, across restarts.
    var log: String { (try? String(contentsOfFile: path("daemon.log"), encoding: .utf8)) ?? "" }

    /// Starts `netrules run RULES --state-dir … --socket …` in ``host`` and waits for a new `READY=1`.
    ///
    /// - Parameters:
    ///   - environment: added to a minimal environment (PATH, HOME, NOTIFY_SOCKET).
    ///   - launcher: a program and its arguments that exec the daemon (`setpriv …`), or none.
    func startDaemon(
        rules: [String], options: [String] = ["--log-level", Testbed.logLevel], environment: [String: String] = [:],
        awaitReady: Bool = true, launcher: [String] = []
    ) async throws -> DaemonProcess {
        let readyBefore = notify.count("READY=1")
        var env = [
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": directory,
            "NOTIFY_SOCKET": notify.path, "NETRULES_LOOP_BUDGET_MS": Self.loopBudgetMilliseconds,
            // A blocking call on the daemon's loop traps (debug builds, `LoopGuard`); `log` to list them all.
            "NETRULES_LOOP_TRAP": ProcessInfo.processInfo.environment["NETRULES_LOOP_TRAP"] ?? "1",
        ]
        env.merge(environment) { $1 }
        let daemon = try DaemonProcess(
            namespace: host.name,
            arguments: ["run"] + rules + ["--state-dir", path("state"), "--socket", path("control.sock")]
                + options,
            environment: env, log: path("daemon.log"), launcher: launcher)
        owned.withLock { $0.daemons.append(daemon) }
        if awaitReady {
            try await eventually("READY=1 from netrules (log: \(logTail()))", timeout: .seconds(20)) {
                if let ended = daemon.termination { throw TestError("netrules \(ended) before READY=1:\n\(logTail())") }
                return notify.count("READY=1") > readyBefore
            }
        }
        return daemon
    }

    /// SIGTERM, then the exit; the contract is a clean exit 0 with `STOPPING=1` sent first.
    func stop(_ daemon: DaemonProcess) async throws -> DaemonProcess.Termination {
        daemon.send(SIGTERM)
        return try await daemon.waitForExit(timeout: .seconds(20))
    }

    /// The last lines of the daemon's log, for failure messages.
    func logTail(_ lines: Int = 40) -> String {
        log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// The running daemon's facts as `netrules status --json` reads them over the control socket.
    func daemonFacts() -> String {
        (try? TestNamespace.shell(
            DaemonProcess.executable, "status", "--json", "--socket", path("control.sock")))
            ?? "(no answer on the control socket)"
    }

    private func printLog() {
        print("---- netrules log (\(path("daemon.log"))) ----\n\(logTail(200))\n---- end of log ----")
        // Only while a daemon runs: without one, `status` falls back to reading this machine.
        if owned.withLock({ $0.daemons.contains { $0.termination == nil } }) {
            print("---- facts on the control socket ----\n\(daemonFacts())\n----")
        }
    }

    private func tearDown() {
        let (servers, daemons) = owned.withLock { ($0.servers, $0.daemons) }
        daemons.forEach { $0.killAndReap() }
        // Plugins and actions run in process groups of their own, and a SIGKILLed daemon leaves
        // them behind: every process still in one of our namespaces was started by this test.
        for namespace in [host, peer] { killProcesses(in: namespace) }
        servers.forEach { $0.stop() }
        host.delete()
        peer.delete()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func killProcesses(in namespace: TestNamespace) {
        let me = getpid()
        for _ in 0..<50 {
            let output = (try? TestNamespace.shell("ip", "netns", "pids", namespace.name)) ?? ""
            let pids = output.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }.filter { $0 != me }
            if pids.isEmpty { return }
            pids.forEach { kill($0, SIGKILL) }
            usleep(20_000)
        }
    }
}
