internal import Glibc
import NetRulesCLI
import NetRulesCore
internal import NetRulesSystem

/// A mosquitto the MQTT benchmark starts on a unix socket in its work directory (no TCP listener,
/// so nothing but this machine's processes can reach it), anonymous and without persistence.
/// `stop()` ends it and `start()` starts it again on the same socket.
///
/// The daemon reaches it through `socketPath`, a symbolic link to the socket mosquitto listens on
/// (`listenPath`, where the benchmark's own subscriber connects). A restart can hold the daemon
/// back (`start(admittingDaemon: false)`) until the subscriber is subscribed, then `admitDaemon()`:
/// a daemon reconnecting first would publish its backlog to nobody.
final class BenchBroker: @unchecked Sendable {
    // Confined to the benchmark that made it (no concurrent use).
    let socketPath: String
    let listenPath: String
    let log: String
    private let configuration: String
    private var process: BackgroundProcess?

    /// The broker as `mqtt:` writes it.
    var url: String { "unix:" + socketPath }

    /// Writes the configuration under `directory` and starts the broker.
    /// - Throws: `CommandError.runtime` when mosquitto is not installed or does not start.
    init(directory: String) async throws {
        socketPath = directory + "/mqtt.sock"
        listenPath = directory + "/mqtt-listen.sock"
        log = directory + "/mosquitto.log"
        configuration = directory + "/mosquitto.conf"
        let lines = [
            "listener 0 \(listenPath)", "allow_anonymous true", "persistence false", "log_dest stderr",
            "log_type error", "log_type warning", "log_type notice", "log_type information",
            // It runs as root here: without this it would switch to the mosquitto user, who cannot
            // enter the benchmark's 0700 directory.
            "user root",
        ]
        guard BenchProcess.writeFile(configuration, Array((lines.joined(separator: "\n") + "\n").utf8)) else {
            throw CommandError.runtime("cannot write \(configuration)")
        }
        try await start()
    }

    /// Starts the broker and waits (at most 10 s) until its socket accepts connections; the daemon
    /// can reach it once it is admitted (at once unless `admittingDaemon` is false).
    func start(admittingDaemon: Bool = true) async throws {
        guard let mosquitto = BenchProcess.resolve("mosquitto") else {
            throw CommandError.runtime("the MQTT benchmark needs mosquitto (apt-get install mosquitto)")
        }
        // A socket left by a broker that was killed is replaced; none is the usual case.
        _ = try? sys_unlink(listenPath).get()
        do {
            process = try BackgroundProcess(
                [mosquitto, "-c", configuration], environment: ["PATH=/usr/bin:/bin"], log: log)
        } catch {
            throw CommandError.runtime("cannot start mosquitto: \(error.errno.message)")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let ended = process?.termination {
                throw CommandError.runtime(
                    "mosquitto ended (\(ended)): \(TerminalText.escaped(BenchProcess.readText(log) ?? ""))")
            }
            if case .success = sys_access(listenPath, F_OK) {
                if admittingDaemon { admitDaemon() }
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw CommandError.runtime("mosquitto did not listen on \(listenPath) within 10 s; see \(log)")
    }

    /// Lets the daemon reach the broker: the link at `socketPath`, made again.
    func admitDaemon() {
        // No link is there on the first start, or after `stop()`.
        _ = try? sys_unlink(socketPath).get()
        symlink(listenPath, socketPath)
    }

    /// Stops the broker (SIGTERM, SIGKILL after 5 s) and waits for it; the daemon's link goes first.
    func stop() {
        // The link is not there when the daemon was not admitted.
        _ = try? sys_unlink(socketPath).get()
        process?.stop(grace: .seconds(5))
        process = nil
    }
}
