import NetRulesCore
import NetRulesDaemon
import NetRulesLinux
import NetRulesProbes

/// `netrules status [--json] [--control-socket PATH]`: one snapshot of the network facts.
enum StatusSubcommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show the network as netrules sees it: interfaces, addresses, gateway, DNS, Wi-Fi.",
        discussion: """
            When a netrules daemon answers on the control socket, shows the daemon's facts (probe facts \
            such as connectivity and hosts.* included); otherwise reads the system directly. With --json, \
            one document whose keys are the fact keys rules use: \
            {"version":1,"facts":{"gateway":"…","ip":[…],"interfaces.eth0":"up",…}}.
            """,
        options: [.json, .controlSocket, .daemonStateDirectory]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let json = arguments.flag("json")
        if let client = try ControlClient.connect(path: arguments.controlSocket(io)) {
            let answer = try await client.response(to: ControlRequest.status.document)
            if let message = ControlDocuments.errorMessage(in: answer) { throw CommandError.runtime(message) }
            io.stdout.write(json ? answer.compact + "\n" : ControlText.status(answer))
            return ExitCode.success
        }
        io.noDaemon(arguments.controlSocket(io))
        let out = io.stdout
        let err = io.stderr
        return await StatusCommand.run(json: json, output: { out.write($0) }, errorOutput: { err.write($0) })
    }
}

/// `netrules watch [--json] [--control-socket PATH]`: fact changes as they happen.
enum WatchSubcommand: Command {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Print each network fact change as it happens, until interrupted.",
        discussion: """
            When a netrules daemon answers on the control socket, shows the daemon's fact changes; \
            otherwise runs the Linux observers itself. The first lines are the current values. \
            With --json, one line per change: {"at":…,"key":…,"new":…,"old":…,"version":1}.
            """,
        options: [.json, .controlSocket, .daemonStateDirectory]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let json = arguments.flag("json")
        let socket = arguments.controlSocket(io)
        if let client = try ControlClient.connect(path: socket) {
            for try await line in client.stream(ControlRequest.watch.document) {
                if let message = ControlDocuments.errorMessage(in: line) { throw CommandError.runtime(message) }
                io.stdout.write(json ? line.compact + "\n" : ControlText.change(line))
            }
            // Interrupting watch is the normal way to end it; the daemon going away is not.
            if Task.isCancelled { return ExitCode.success }
            throw CommandError.runtime("the netrules daemon closed the control socket \(socket)")
        }
        io.noDaemon(socket)
        let out = io.stdout
        let err = io.stderr
        return await WatchCommand.run(json: json, output: { out.write($0) }, errorOutput: { err.write($0) })
    }
}

extension CommandIO {
    /// The one line `status`, `watch`, `explain` and `facts` print when they read the system
    /// themselves: a user must not mistake the system's view for the daemon's.
    func noDaemon(_ socket: String) {
        printError(
            "note: no netrules daemon answers on \(socket); facts read directly from the system, "
                + "so the probes' facts (connectivity, portal.url, hosts.*) are unknown")
    }
}

/// `text` ending in exactly one newline.
func terminated(_ text: String) -> String {
    text.hasSuffix("\n") ? text : text + "\n"
}

extension OptionSpec {
    /// `--socket PATH` (formerly `--control-socket`): where to look for a running daemon.
    static let controlSocket = OptionSpec(
        long: "socket", valueName: "path",
        help: "The daemon's control socket; else /run/netrules/control.sock as root, under $XDG_RUNTIME_DIR otherwise.",
        aliases: ["control-socket"]
    )

    /// `--state-dir DIR`: the state directory a daemon was started with (its socket is there).
    static let daemonStateDirectory = OptionSpec(
        long: "state-dir", valueName: "dir", help: "Find the daemon started with 'run --state-dir DIR'.")
}

extension ParsedArguments {
    /// The control socket: `--socket`, else the daemon's default for this user (or for `--state-dir`).
    func controlSocket(_ io: CommandIO) -> String {
        value("socket")
            ?? DaemonPaths.defaults(environment: io.environment, stateDirectory: value("state-dir")).controlSocket
    }
}

/// `netrules ping HOST… [-c COUNT] [-i INTERVAL] [-W TIMEOUT] [--json]`.
enum PingSubcommand: Command {
    static let spec = CommandSpec(
        name: "ping",
        abstract: "Send ICMP echo requests, like ping; several hosts at once share one socket.",
        discussion: """
            Exits 0 when any reply came, 1 otherwise. Uses an unprivileged ICMP socket when \
            net.ipv4.ping_group_range allows it, else a raw socket (root).
            """,
        arguments: [ArgumentSpec(name: "host", help: "Addresses or names to ping.", isRepeating: true)],
        options: [
            OptionSpec(
                long: "count", short: "c", valueName: "count", help: "Echo requests per host.", defaultValue: "3"),
            OptionSpec(
                long: "interval", short: "i", valueName: "seconds", help: "Time between requests.", defaultValue: "1"),
            OptionSpec(
                long: "timeout", short: "W", valueName: "seconds", help: "How long to wait for each reply.",
                defaultValue: "0.5"),
            OptionSpec(long: "json", help: "Print one JSON object per reply, timeout and summary (JSON Lines)."),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        guard let count = Int(arguments.value("count") ?? "3"), count >= 1 else {
            throw CommandError.runtime("--count must be a whole number of at least 1")
        }
        let interval = try seconds(arguments.value("interval") ?? "1", option: "--interval")
        let timeout = try seconds(arguments.value("timeout") ?? "0.5", option: "--timeout")
        let out = io.stdout
        let err = io.stderr
        // The probes' commands hand over lines without their newline.
        return await PingCommand.run(
            hosts: arguments.positional("host"), count: count, interval: interval, timeout: timeout,
            json: arguments.flag("json"), output: { out.write(terminated($0)) },
            errorOutput: { err.write(terminated($0)) })
    }

    /// Seconds as ping writes them (`0.5`), or a duration (`500ms`).
    static func seconds(_ text: String, option: String) throws -> Duration {
        let limit = DurationSyntax.seconds(DurationSyntax.maximum)
        if let s = Double(text), s.isFinite, s >= 0 {
            guard s <= limit else { throw CommandError.runtime("\(option) \(text) is longer than 100 years") }
            return DurationSyntax.duration(seconds: s)
        }
        switch DurationSyntax.parseChecked(text) {
        case .success(let d): return d
        case .failure(.tooLong): throw CommandError.runtime("\(option) \(text) is longer than 100 years")
        case .failure(.notADuration): break
        }
        throw CommandError.runtime("\(option) must be seconds (0.5) or a duration (500ms), not '\(text)'")
    }
}

/// `netrules portal [--url URL…] [--json]`: one captive-portal classification with its evidence.
enum PortalSubcommand: Command {
    static let spec = CommandSpec(
        name: "portal",
        abstract: "Check for a captive portal: online, portal or offline, with the evidence.",
        discussion: """
            Fetches the probe URLs over plain HTTP in parallel without following redirects; the first \
            conclusive answer wins. Without --url, Apple's hotspot-detect page and a generate_204 URL.
            """,
        options: [
            OptionSpec(
                long: "url", valueName: "url", help: "A probe URL (repeatable); expects 'Success' or an empty 204.",
                isRepeating: true),
            OptionSpec(long: "interface", valueName: "name", help: "Bind the probes to this interface."),
            OptionSpec(long: "timeout", valueName: "seconds", help: "Per-probe timeout.", defaultValue: "5"),
            .json,
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let timeout = try PingSubcommand.seconds(arguments.value("timeout") ?? "5", option: "--timeout")
        let out = io.stdout
        return await PortalCommand.run(
            urls: arguments.values("url").filter { !$0.isEmpty }, json: arguments.flag("json"),
            interface: arguments.value("interface"), timeout: timeout, output: { out.write(terminated($0)) })
    }
}
