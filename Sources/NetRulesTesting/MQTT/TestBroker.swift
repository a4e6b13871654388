import Foundation
import NetRulesSystem

/// A real mosquitto broker started by a test with a generated configuration: a loopback port
/// chosen free, or a unix socket; anonymous, or with a password file. Stopped by `stop()`.
package final class TestBroker: @unchecked Sendable {
    // Confined to the test that made it (no concurrent use).
    package let directory: TemporaryDirectory
    package let port: Int
    package let socketPath: String?
    let configuration: String
    package let log: String
    /// Where the broker listens when it runs in a network namespace: its name and address.
    package let namespace: (name: String, address: String)?

    /// Whether mosquitto and its clients are installed; tests that need them are skipped loudly otherwise.
    package static let installed: Bool =
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")

    /// Makes and starts a broker; `users` adds a password file (and refuses anonymous clients);
    /// `tls` adds a TLS listener with that certificate and key instead of the plain one;
    /// `persistent` keeps sessions (and the QoS 1 messages queued for them) across a `stop()` and
    /// `start()`, in the broker's directory; `namespace` runs it in that network namespace, listening
    /// on `address` there (and its clients, `retained` and `subscribe`, run there too); `port`
    /// chooses the port (a free one by default).
    package init(
        unixSocket: Bool = false, users: [String: String] = [:], tls: (cert: String, key: String)? = nil,
        persistent: Bool = false, namespace: (name: String, address: String)? = nil, port: Int? = nil
    ) async throws {
        directory = TemporaryDirectory("netrules-mqtt")
        self.port = try port ?? Self.freePort()
        self.namespace = namespace
        socketPath = unixSocket ? directory.file("mqtt.sock") : nil
        log = directory.file("mosquitto.log")
        var lines = [
            unixSocket
                ? "listener 0 \(directory.file("mqtt.sock"))"
                : "listener \(self.port) \(namespace?.address ?? "127.0.0.1")",
            "allow_anonymous \(users.isEmpty ? "true" : "false")", "log_dest stderr", "log_type all", "user root",
        ]
        lines += persistent ? ["persistence true", "persistence_location \(directory.path)/"] : ["persistence false"]
        if let tls {
            lines += ["certfile \(tls.cert)", "keyfile \(tls.key)"]
        }
        if !users.isEmpty {
            let file = directory.write("passwords", "", mode: 0o600)
            for (user, password) in users {
                _ = try await Self.run("/usr/bin/mosquitto_passwd", ["-b", file, user, password])
            }
            lines.append("password_file \(file)")
        }
        configuration = directory.write("mosquitto.conf", lines.joined(separator: "\n") + "\n")
        try await start()
    }

    /// Starts the broker (again) and waits until it listens.
    package func start() async throws {
        process = try BackgroundProcess(
            inNamespace + ["/usr/sbin/mosquitto", "-c", configuration], environment: ["PATH=/usr/bin:/bin"], log: log)
        let deadline = Date().addingTimeInterval(20)
        while true {
            // Looked at once more after the deadline: a test process stalled past it (a loaded
            // machine) must not call a broker that did start a failure.
            let late = Date() >= deadline
            // A log not written yet reads as empty, which means not started yet.
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if text.components(separatedBy: "Opening ").count > starts {
                starts += 1
                return
            }
            if late { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        // Not left running behind a failed test.
        stop()
        // The message is the best the log can say; an unreadable log says nothing.
        throw TestBrokerError("mosquitto did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    private var starts = 1
    var process: BackgroundProcess?

    /// Stops the broker (SIGTERM) and waits for it.
    package func stop() {
        process?.stop(grace: .seconds(5))
        process = nil
    }

    package func remove() {
        stop()
        directory.remove()
    }

    /// The broker as `mqtt:` writes it.
    package var url: String { socketPath.map { "unix:\($0)" } ?? "mqtt://\(host):\(port)" }

    /// The address it listens on.
    package var host: String { namespace?.address ?? "127.0.0.1" }

    /// Arguments of mosquitto_sub that reach this broker.
    package var clientArguments: [String] {
        socketPath.map { ["--unix", $0] } ?? ["-h", host, "-p", String(port)]
    }

    /// The words that run a program in the broker's namespace (none outside one).
    package var inNamespace: [String] { namespace.map { ["/usr/sbin/ip", "netns", "exec", $0.name] } ?? [] }

    /// The broker's log so far.
    package var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// The retained messages under `filter`, as sorted `TOPIC PAYLOAD` lines (mosquitto_sub --retained-only).
    package func retained(_ filter: String, user: (String, String)? = nil) async throws -> [String] {
        var arguments = clientArguments + ["-t", filter, "--retained-only", "-W", "1", "-F", "%t %p"]
        if let user { arguments += ["-u", user.0, "-P", user.1] }
        let command = inNamespace + ["/usr/bin/mosquitto_sub"] + arguments
        let output = try await Self.run(command[0], Array(command.dropFirst()))
        return output.split(separator: "\n").map(String.init).sorted()
    }

    /// Starts mosquitto_sub for `count` messages on `filter` (at most `seconds`); `wait()` on the
    /// result returns its lines. It is subscribed when this returns.
    /// `format` is mosquitto_sub's `-F` (`%P`: MQTT 5 user properties); `-V mqttv5` is always used.
    /// `session` names a session the broker keeps (client id, no clean start, QoS 1, an hour's
    /// expiry): what is published to it while no subscriber is connected waits for the next one.
    package func subscribe(
        _ filter: String, count: Int, seconds: Int = 10, format: String = "%t %r %p", session: String? = nil
    ) async throws -> Subscriber {
        subscribers += 1
        let output = directory.file("sub\(subscribers).log")
        let process = try BackgroundProcess(
            // Line-buffered, so -d's SUBACK line shows that it subscribed.
            inNamespace + ["/usr/bin/stdbuf", "-oL", "/usr/bin/mosquitto_sub"] + clientArguments
                + ["-V", "mqttv5", "-t", filter, "-C", String(count), "-W", String(seconds), "-F", format, "-d"]
                + (session.map { ["-c", "-i", $0, "-q", "1", "-x", "3600"] } ?? []),
            environment: [], log: output)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, !((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("SUBACK") {
            try await Task.sleep(for: .milliseconds(10))
        }
        return Subscriber(process: process, output: output)
    }

    private var subscribers = 0

    package struct Subscriber {
        let process: BackgroundProcess
        let output: String

        /// The `TOPIC RETAIN PAYLOAD` lines it printed (without mosquitto_sub's -d chatter), once it ended.
        package func wait() async throws -> [String] {
            let deadline = Date().addingTimeInterval(20)
            while process.termination == nil, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            process.stop(grace: .seconds(1))
            return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
                .map(String.init).filter {
                    !$0.hasPrefix("Client ") && !$0.hasPrefix("Subscribed") && $0 != "Timed out"
                }
        }
    }

    /// Runs a short command and returns its standard output.
    package static func run(_ path: String, _ arguments: [String]) async throws -> String {
        let child = ChildProcess(
            executablePath: path, arguments: ([path] + arguments).map { Array($0.utf8) }, environment: [],
            timeout: .seconds(10))
        let outcome = try await child.run(on: .testLoop)
        return String(decoding: outcome.standardOutput.bytes, as: UTF8.self)
    }

    /// A loopback TCP port nobody listens on now.
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw TestBrokerError("bind failed") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

package struct TestBrokerError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
